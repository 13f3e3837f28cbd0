//go:build !cuda

package autodiff

import (
	"fmt"
	"math/rand/v2"

	"gorgonia.org/tensor"

	"mascot.dev/mascot/trainer/compute"
	"mascot.dev/mascot/trainer/lora"
	"mascot.dev/mascot/trainer/qwen3"
)

// Param is one named parameter of the model. Linear weights are stored
// transposed ([in, out]) so the graph multiplies without a Transpose node;
// Name and HFShape always follow the checkpoint (Hugging Face or PEFT)
// convention, and Weights/LoRAWeights convert back.
type Param struct {
	// Name is the checkpoint key: a Hugging Face key for base weights,
	// a PEFT key (LoRAKeyA/LoRAKeyB) for adapters, "score.weight" for the head.
	Name string
	// Shape is the internal shape; HFShape the checkpoint shape.
	Shape, HFShape []int
	// Transposed is true when Shape is HFShape reversed (2-D only).
	Transposed bool
	// Trainable parameters receive gradients; the others are frozen.
	Trainable bool
	// Decay says whether weight decay applies (false for norm weights,
	// as transformers' get_decay_parameter_names).
	Decay bool
	// Grad accumulates dLoss/dParam over Backward calls until ZeroGrad.
	Grad []float64
	// grad32 accumulates the same gradient in float32 (float32 models):
	// the slice behind TrainParams' gradient tensor, which the trainer's
	// optimizer reads and zeroes.
	grad32 []float32
	// tensors are the value and grad32 as Backend tensors (TrainParams).
	tensors *[2]compute.Tensor

	dense *tensor.Dense
}

// F32 returns the float32 backing slice (nil for a float64 model). Writing
// to it updates every compiled graph, which share the backing.
func (p *Param) F32() []float32 { v, _ := p.dense.Data().([]float32); return v }

// F64 returns the float64 backing slice (nil for a float32 model).
func (p *Param) F64() []float64 { v, _ := p.dense.Data().([]float64); return v }

// Len is the number of elements.
func (p *Param) Len() int { return p.dense.Shape().TotalSize() }

// At returns element i as float64.
func (p *Param) At(i int) float64 {
	if f := p.F32(); f != nil {
		return float64(f[i])
	}
	return p.F64()[i]
}

// Set stores v at element i.
func (p *Param) Set(i int, v float64) {
	if f := p.F32(); f != nil {
		f[i] = float32(v)
		return
	}
	p.F64()[i] = v
}

// Params is the ordered parameter set of a Model.
type Params struct {
	List   []*Param
	byName map[string]*Param
}

// Get returns the parameter with checkpoint key name, or nil.
func (ps *Params) Get(name string) *Param { return ps.byName[name] }

// Trainable returns the trainable parameters in model order.
func (ps *Params) Trainable() []*Param {
	var out []*Param
	for _, p := range ps.List {
		if p.Trainable {
			out = append(out, p)
		}
	}
	return out
}

// ZeroGrad clears every accumulated gradient.
func (ps *Params) ZeroGrad() {
	for _, p := range ps.List {
		clear(p.Grad)
		clear(p.grad32)
	}
}

func (ps *Params) add(p *Param, data []float64, f64 bool) {
	n := 1
	for _, s := range p.Shape {
		n *= s
	}
	if f64 {
		p.dense = tensor.New(tensor.WithShape(p.Shape...), tensor.WithBacking(data))
	} else {
		f := make([]float32, n)
		for i, v := range data {
			f[i] = float32(v)
		}
		p.dense = tensor.New(tensor.WithShape(p.Shape...), tensor.WithBacking(f))
	}
	if p.Trainable {
		p.Grad = make([]float64, n)
		if !f64 {
			p.grad32 = make([]float32, n)
		}
	}
	ps.List = append(ps.List, p)
	ps.byName[p.Name] = p
}

// hfTensor fetches a checkpoint tensor, checking its shape.
func hfTensor(w qwen3.Weights, name string, shape ...int) ([]float64, error) {
	t, ok := w[name]
	if !ok {
		return nil, fmt.Errorf("weight %s is missing", name)
	}
	if len(t.Shape) != len(shape) {
		return nil, fmt.Errorf("weight %s has shape %v, want %v", name, t.Shape, shape)
	}
	n := 1
	for i := range shape {
		if t.Shape[i] != shape[i] {
			return nil, fmt.Errorf("weight %s has shape %v, want %v", name, t.Shape, shape)
		}
		n *= shape[i]
	}
	if len(t.Data) != n {
		return nil, fmt.Errorf("weight %s holds %d values, want %d", name, len(t.Data), n)
	}
	out := make([]float64, n)
	for i, v := range t.Data {
		out[i] = float64(v)
	}
	return out, nil
}

// transpose2 turns a row-major [r,c] matrix into [c,r].
func transpose2(a []float64, r, c int) []float64 {
	out := make([]float64, len(a))
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			out[j*r+i] = a[i*c+j]
		}
	}
	return out
}

// buildParams converts checkpoint weights into the internal layout and
// adds LoRA adapters and the score head as the options ask.
func buildParams(d dims, cfg qwen3.Config, w qwen3.Weights, o Options) (*Params, error) {
	ps := &Params{byName: map[string]*Param{}}
	full := o.Train == TrainAll
	norm := func(name string, n int) error {
		v, err := hfTensor(w, name, n)
		if err != nil {
			return err
		}
		ps.add(&Param{Name: name, Shape: []int{n}, HFShape: []int{n}, Trainable: full}, v, o.Float64)
		return nil
	}
	linear := func(name string, out, in int) error {
		v, err := hfTensor(w, name, out, in)
		if err != nil {
			return err
		}
		ps.add(&Param{Name: name, Shape: []int{in, out}, HFShape: []int{out, in}, Transposed: true,
			Trainable: full, Decay: true}, transpose2(v, out, in), o.Float64)
		return nil
	}
	rng := rand.New(rand.NewPCG(o.Seed, 0x10ad))
	emb, err := hfTensor(w, "model.embed_tokens.weight", d.V, d.D)
	if err != nil {
		return nil, err
	}
	ps.add(&Param{Name: "model.embed_tokens.weight", Shape: []int{d.V, d.D}, HFShape: []int{d.V, d.D},
		Trainable: full, Decay: true}, emb, o.Float64)
	for i := 0; i < d.L; i++ {
		pre := fmt.Sprintf("model.layers.%d.", i)
		if err := norm(pre+"input_layernorm.weight", d.D); err != nil {
			return nil, err
		}
		for _, proj := range AllTargets {
			in, out := d.projShape(proj)
			if err := linear(modulePath(i, proj)+".weight", out, in); err != nil {
				return nil, err
			}
			if o.LoRA != nil && o.LoRA.Adapts(proj) {
				if err := addLoRA(ps, modulePath(i, proj), in, out, o, rng); err != nil {
					return nil, err
				}
			}
		}
		for _, n := range []string{"self_attn.q_norm.weight", "self_attn.k_norm.weight"} {
			if err := norm(pre+n, d.Hd); err != nil {
				return nil, err
			}
		}
		if err := norm(pre+"post_attention_layernorm.weight", d.D); err != nil {
			return nil, err
		}
	}
	if err := norm("model.norm.weight", d.D); err != nil {
		return nil, err
	}
	if !cfg.TieWordEmbeddings && !o.ScoreHead {
		if err := linear("lm_head.weight", d.V, d.D); err != nil {
			return nil, err
		}
	}
	if o.ScoreHead {
		var v []float64
		if _, ok := w["score.weight"]; ok {
			if v, err = hfTensor(w, "score.weight", 1, d.D); err != nil {
				return nil, err
			}
		} else {
			v = make([]float64, d.D)
			for j := range v {
				v[j] = rng.NormFloat64() * 0.02 // initializer_range
			}
		}
		ps.add(&Param{Name: "score.weight", Shape: []int{d.D}, HFShape: []int{1, d.D},
			Trainable: o.Train == TrainAll || o.Train == TrainLoRAAndScore, Decay: true}, v, o.Float64)
	}
	return ps, nil
}

// addLoRA adds the A and B matrices of one adapted projection, from
// Options.InitLoRA or with PEFT's default init: A ~ U(-1/sqrt(in),
// 1/sqrt(in)), B = 0.
func addLoRA(ps *Params, module string, in, out int, o Options, rng *rand.Rand) error {
	r := o.LoRA.R
	trainable := o.Train == TrainLoRA || o.Train == TrainLoRAAndScore || o.Train == TrainAll
	a := make([]float64, in*r) // internal [in, r]
	b := make([]float64, r*out)
	bound := lora.InitBound(in)
	for i := range a {
		a[i] = (2*rng.Float64() - 1) * bound
	}
	if o.InitLoRA != nil {
		ha, err := hfTensor(o.InitLoRA, LoRAKeyA(module), r, in)
		if err != nil {
			return fmt.Errorf("initialising adapter: %w", err)
		}
		hb, err := hfTensor(o.InitLoRA, LoRAKeyB(module), out, r)
		if err != nil {
			return fmt.Errorf("initialising adapter: %w", err)
		}
		a, b = transpose2(ha, r, in), transpose2(hb, out, r)
	}
	ps.add(&Param{Name: LoRAKeyA(module), Shape: []int{in, r}, HFShape: []int{r, in}, Transposed: true,
		Trainable: trainable, Decay: true}, a, o.Float64)
	ps.add(&Param{Name: LoRAKeyB(module), Shape: []int{r, out}, HFShape: []int{out, r}, Transposed: true,
		Trainable: trainable, Decay: true}, b, o.Float64)
	return nil
}
