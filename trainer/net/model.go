package net

import (
	"fmt"
	"path/filepath"

	"mascot.dev/mascot/trainer/compute"
	"mascot.dev/mascot/trainer/pass"
	"mascot.dev/mascot/trainer/qwen3"
)

// Options configure a Model.
type Options struct {
	// LoRA adds adapters; nil means none.
	LoRA *pass.LoRAConfig
	// Train picks the trainable parameters.
	Train pass.Trainable
	// ScoreHead makes a sequence-classification model: the head
	// score.weight [1, D] (read from the weights when present, else drawn
	// from N(0, 0.02²)) replaces the LM head, which is neither loaded nor
	// computed.
	ScoreHead bool
	// Seed drives LoRA and score-head initialisation (the same draws, in
	// the same order, as trainer/autodiff's).
	Seed uint64
	// InitLoRA, when set, holds adapter tensors with PEFT keys and shapes
	// (A [r,in], B [out,r]) that replace PEFT's initialisation.
	InitLoRA qwen3.Weights
	// BaseDType stores the frozen projections, embedding and LM head as
	// compute.F32 or compute.BF16. 0 keeps them as the source has them:
	// float32 weights in memory stay F32 (aliased, not copied, on a backend
	// that can: the CPU's), a checkpoint directory's BF16 tensors stay BF16
	// and its F16 and F32 ones become F32. Trained weights (TrainAll) and
	// norm weights are always F32.
	BaseDType compute.DType
	// KeepActivations keeps every layer's activations from forward to
	// backward instead of recomputing each layer from its stored input
	// (faster by about a forward pass, memory linear in layers × tokens ×
	// the widest activations; for small models).
	KeepActivations bool
	// ChunkTokens bounds the tokens (rows × their padded length) of one
	// group of rows; 0 means DefaultChunkTokens. A row longer than it makes
	// a group of its own.
	ChunkTokens int
	// HeadRows bounds the positions of one LM-head call (0: as many as keep
	// one call under about 2^35 multiply-adds, so cancellation stays prompt).
	HeadRows int
}

// DefaultChunkTokens is the default Options.ChunkTokens: large enough for
// matrix products near the BLAS peak, small enough that one group's
// scratch of a Qwen3-0.6B layer stays near 300 MiB.
const DefaultChunkTokens = 2048

// dims are the derived sizes of a config.
type dims struct {
	V, D, I, L, H, K, hd, qd, kvd int
	eps                           float32
	theta                         float64
}

func newDims(c qwen3.Config) (dims, error) {
	d := dims{V: c.VocabSize, D: c.HiddenSize, I: c.IntermediateSize, L: c.NumHiddenLayers,
		H: c.NumAttentionHeads, K: c.NumKeyValueHeads, hd: c.HeadDim, eps: float32(c.RMSNormEps), theta: c.RopeTheta}
	if d.K == 0 {
		d.K = d.H
	}
	if d.hd == 0 && d.H > 0 {
		d.hd = d.D / d.H
	}
	if d.theta == 0 {
		d.theta = 10000
	}
	switch {
	case d.V <= 0 || d.D <= 0 || d.I <= 0 || d.L <= 0 || d.H <= 0:
		return d, fmt.Errorf("config needs positive vocab, hidden, intermediate, layers and heads")
	case d.H%d.K != 0:
		return d, fmt.Errorf("config: %d attention heads not divisible by %d kv heads", d.H, d.K)
	case d.hd%2 != 0:
		return d, fmt.Errorf("config: head_dim %d must be even for RoPE", d.hd)
	}
	d.qd, d.kvd = d.H*d.hd, d.K*d.hd
	return d, nil
}

// shape returns [out, in] of projection p.
func (d dims) shape(p qwen3.Proj) (out, in int) {
	switch p {
	case qwen3.QProj:
		return d.qd, d.D
	case qwen3.KProj, qwen3.VProj:
		return d.kvd, d.D
	case qwen3.OProj:
		return d.D, d.qd
	case qwen3.GateProj, qwen3.UpProj:
		return d.I, d.D
	}
	return d.D, d.I
}

// Model is a Qwen3 network on a compute.Backend. It is not safe for
// concurrent use (nor is a Backend).
type Model struct {
	Config  qwen3.Config
	Options Options

	be     compute.Backend
	d      dims
	params []*param
	byName map[string]*param
	embed  *param
	norm   *param
	head   *param // lm_head, the embedding when tied, nil with a score head
	score  *param
	layers []layer
	// scale is the LoRA scaling (alpha/r or alpha/√r), 0 without adapters.
	scale float32
	bufs  buffers
	rope  ropeTables
	// flops counts the multiply-adds ×2 the backend was asked for, by
	// kind, since the model was built (Counters).
	flops Counters
}

// layer holds one decoder layer's parameters.
type layer struct {
	inNorm, postNorm, qNorm, kNorm *param
	w                              [qwen3.NumProj]*param
	// a and b are the LoRA matrices (A [r,in], B [out,r]); nil when the
	// projection is not adapted.
	a, b [qwen3.NumProj]*param
}

// New builds a model on be from the base weights src yields (Hugging Face
// keys and layouts), adding adapters and the score head as opts say.
func New(be compute.Backend, cfg qwen3.Config, src Source, opts Options) (*Model, error) {
	d, err := newDims(cfg)
	if err != nil {
		return nil, fmt.Errorf("building network: %w", err)
	}
	if opts.LoRA != nil {
		if err := opts.LoRA.Validate(); err != nil {
			return nil, fmt.Errorf("building network: %w", err)
		}
	}
	if opts.LoRA == nil && (opts.Train == pass.TrainLoRA || opts.Train == pass.TrainLoRAAndScore) {
		return nil, fmt.Errorf("building network: training adapters needs a LoRA config")
	}
	switch opts.BaseDType {
	case 0, compute.F32, compute.BF16:
	default:
		return nil, fmt.Errorf("building network: base dtype %v (want F32 or BF16)", opts.BaseDType)
	}
	if opts.Train == pass.TrainAll && opts.BaseDType == compute.BF16 {
		return nil, fmt.Errorf("building network: training every weight needs an F32 base, not BF16")
	}
	if opts.ChunkTokens <= 0 {
		opts.ChunkTokens = DefaultChunkTokens
	}
	m := &Model{Config: cfg, Options: opts, be: be, d: d, byName: map[string]*param{}}
	m.bufs.be = be
	if opts.LoRA != nil {
		m.scale = float32(opts.LoRA.Scaling())
	}
	if err := m.build(src); err != nil {
		m.Close()
		return nil, fmt.Errorf("building network: %w", err)
	}
	if err := be.Sync(); err != nil {
		m.Close()
		return nil, fmt.Errorf("building network: %w", err)
	}
	return m, nil
}

// Load builds a model from a checkpoint directory (config.json and its
// safetensors), reading one tensor at a time straight onto be.
func Load(be compute.Backend, dir string, opts Options) (*Model, error) {
	cfg, err := qwen3.LoadConfig(filepath.Join(dir, "config.json"))
	if err != nil {
		return nil, fmt.Errorf("loading network %s: %w", dir, err)
	}
	return New(be, cfg, FromDir(dir), opts)
}

// Backend is the backend the model runs on.
func (m *Model) Backend() compute.Backend { return m.be }

// Close frees every tensor the model allocated.
func (m *Model) Close() {
	for _, p := range m.params {
		p.free(m.be)
	}
	m.params, m.byName = nil, map[string]*param{}
	m.bufs.freeAll()
	m.rope.free(m.be)
}

// BaseBytes is the memory the frozen base takes on the backend (aliased
// host memory included).
func (m *Model) BaseBytes() int64 {
	var n int64
	for _, p := range m.params {
		if !p.trainable {
			n += int64(p.v.Len()) * int64(p.v.DType().Size())
		}
	}
	return n
}

// NumParams counts the model's parameters (a tied head once).
func (m *Model) NumParams() int64 {
	var n int64
	for _, p := range m.params {
		n += int64(p.v.Len())
	}
	return n
}
