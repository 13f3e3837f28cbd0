//go:build !cuda

package autodiff

import (
	"fmt"

	"mascot.dev/mascot/trainer/compute/cpu"
	"mascot.dev/mascot/trainer/pass"
	"mascot.dev/mascot/trainer/qwen3"
)

// Trainable selects which parameters receive gradients (shared with
// trainer/net).
type Trainable = pass.Trainable

// The trainable sets.
const (
	TrainNone         = pass.TrainNone
	TrainLoRA         = pass.TrainLoRA
	TrainLoRAAndScore = pass.TrainLoRAAndScore
	TrainAll          = pass.TrainAll
)

// Options configure a Model.
type Options struct {
	// Float64 builds the graphs in float64 (gradient checks); float32 otherwise.
	Float64 bool
	// LoRA adds adapters; nil means none.
	LoRA *LoRAConfig
	// Train picks the trainable parameters.
	Train Trainable
	// ScoreHead makes a sequence-classification model: the head
	// score.weight [1, D] (read from the weights when present, else drawn
	// from N(0, 0.02²)) replaces the LM head, which is neither loaded nor
	// computed.
	ScoreHead bool
	// Seed drives LoRA/score initialisation.
	Seed uint64
	// InitLoRA, when set, holds adapter tensors with PEFT keys and shapes
	// (A [r,in], B [out,r]; e.g. lora.Adapter.Weights of an SFT adapter)
	// that replace the PEFT initialisation; every adapted module must be present.
	InitLoRA qwen3.Weights
}

// dims are the derived sizes of a config.
type dims struct {
	V, D, I, L, H, K, Hd int
	Eps, Theta           float64
}

func newDims(c qwen3.Config) (dims, error) {
	d := dims{V: c.VocabSize, D: c.HiddenSize, I: c.IntermediateSize, L: c.NumHiddenLayers,
		H: c.NumAttentionHeads, K: c.NumKeyValueHeads, Hd: c.HeadDim, Eps: c.RMSNormEps, Theta: c.RopeTheta}
	if d.K == 0 {
		d.K = d.H
	}
	if d.Hd == 0 && d.H > 0 {
		d.Hd = d.D / d.H
	}
	if d.Theta == 0 {
		d.Theta = 10000
	}
	switch {
	case d.V <= 0 || d.D <= 0 || d.I <= 0 || d.L <= 0 || d.H <= 0:
		return d, fmt.Errorf("config needs positive vocab, hidden, intermediate, layers and heads")
	case d.H%d.K != 0:
		return d, fmt.Errorf("config: %d attention heads not divisible by %d kv heads", d.H, d.K)
	case d.Hd%2 != 0:
		return d, fmt.Errorf("config: head_dim %d must be even for RoPE", d.Hd)
	}
	return d, nil
}

// projShape returns (in, out) of a projection.
func (d dims) projShape(proj string) (int, int) {
	switch proj {
	case "q_proj":
		return d.D, d.H * d.Hd
	case "k_proj", "v_proj":
		return d.D, d.K * d.Hd
	case "o_proj":
		return d.H * d.Hd, d.D
	case "gate_proj", "up_proj":
		return d.D, d.I
	default: // down_proj
		return d.I, d.D
	}
}

// Model is a Qwen3 model whose forward and backward run as gorgonia
// graphs, one compiled graph per (batch, length, kind) shape. It is not
// safe for concurrent use.
type Model struct {
	Config  qwen3.Config
	Options Options
	Params  *Params
	dims    dims
	graphs  map[graphKey]*graph
	order   []graphKey
	be      *cpu.Backend // TrainParams' tensors (created on first use)
}

// MaxGraphs bounds the number of compiled graphs a Model keeps.
const MaxGraphs = 6

// MaxCachedTokens bounds the batch tokens (B·T summed over graphs) of the
// compiled graphs a Model keeps: a graph holds its last pass's
// activations, which grow with B·T, so graphs of earlier shapes (GRPO
// batches of other lengths) are dropped rather than kept. The graphs of
// the shape in use (forward and backward) are always kept.
const MaxCachedTokens = 1 << 13

// bigGraphTokens is the size from which dropping graphs returns their
// memory to the system at once.
const bigGraphTokens = 1 << 12

// New builds a model from checkpoint weights (Hugging Face keys and
// layouts), adding adapters and the score head as opts say.
func New(cfg qwen3.Config, w qwen3.Weights, opts Options) (*Model, error) {
	d, err := newDims(cfg)
	if err != nil {
		return nil, fmt.Errorf("building model: %w", err)
	}
	if opts.LoRA != nil {
		if err := opts.LoRA.Validate(); err != nil {
			return nil, fmt.Errorf("building model: %w", err)
		}
	}
	if opts.LoRA == nil && (opts.Train == TrainLoRA || opts.Train == TrainLoRAAndScore) {
		return nil, fmt.Errorf("building model: training adapters needs a LoRA config")
	}
	ps, err := buildParams(d, cfg, w, opts)
	if err != nil {
		return nil, fmt.Errorf("building model: %w", err)
	}
	return &Model{Config: cfg, Options: opts, Params: ps, dims: d, graphs: map[graphKey]*graph{}}, nil
}

// Close releases the compiled graphs.
func (m *Model) Close() {
	for _, g := range m.graphs {
		g.vm.Close()
	}
	m.graphs = map[graphKey]*graph{}
	m.order = nil
}

// hfData returns a parameter in checkpoint layout as float32.
func (p *Param) hfData() []float32 {
	n := p.Len()
	src := make([]float64, n)
	for i := range src {
		src[i] = p.At(i)
	}
	if p.Transposed {
		src = transpose2(src, p.Shape[0], p.Shape[1])
	}
	out := make([]float32, n)
	for i, v := range src {
		out[i] = float32(v)
	}
	return out
}

// Weights returns the base weights (every non-LoRA parameter, score head
// included) in Hugging Face layout. A tied lm_head is omitted.
func (m *Model) Weights() qwen3.Weights {
	w := qwen3.Weights{}
	for _, p := range m.Params.List {
		if isLoRA(p.Name) {
			continue
		}
		w[p.Name] = &qwen3.Tensor{Shape: append([]int(nil), p.HFShape...), Data: p.hfData()}
	}
	return w
}

// LoRAWeights returns the adapters with PEFT keys and shapes (A [r,in],
// B [out,r]), ready for adapter_model.safetensors.
func (m *Model) LoRAWeights() qwen3.Weights {
	w := qwen3.Weights{}
	for _, p := range m.Params.List {
		if isLoRA(p.Name) {
			w[p.Name] = &qwen3.Tensor{Shape: append([]int(nil), p.HFShape...), Data: p.hfData()}
		}
	}
	return w
}

// MergedWeights returns the base weights with every adapter folded in,
// W' = W + scaling·B·A (docs/design/peft.md), in Hugging Face layout.
func (m *Model) MergedWeights() qwen3.Weights {
	w := m.Weights()
	if m.Options.LoRA == nil {
		return w
	}
	s := m.Options.LoRA.Scaling()
	for i := 0; i < m.dims.L; i++ {
		for _, proj := range AllTargets {
			mod := modulePath(i, proj)
			a, b := m.Params.Get(LoRAKeyA(mod)), m.Params.Get(LoRAKeyB(mod))
			if a == nil || b == nil {
				continue
			}
			in, out, r := a.Shape[0], b.Shape[1], a.Shape[1]
			wt := w[mod+".weight"] // [out, in]
			for o := 0; o < out; o++ {
				for j := 0; j < in; j++ {
					var acc float64
					for k := 0; k < r; k++ {
						acc += b.At(k*out+o) * a.At(j*r+k)
					}
					wt.Data[o*in+j] += float32(s * acc)
				}
			}
		}
	}
	return w
}

func isLoRA(name string) bool {
	return len(name) > len(PEFTPrefix) && name[:len(PEFTPrefix)] == PEFTPrefix
}
