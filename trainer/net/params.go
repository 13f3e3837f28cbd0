package net

import (
	"fmt"
	"math/rand/v2"

	"mascot.dev/mascot/trainer/compute"
	"mascot.dev/mascot/trainer/lora"
	"mascot.dev/mascot/trainer/pass"
	"mascot.dev/mascot/trainer/qwen3"
)

// param is one named parameter on the backend, in Hugging Face (or PEFT)
// layout: linear weights [out, in], so y = x·Wᵀ needs no transposition.
type param struct {
	name  string
	shape []int
	v, g  compute.Tensor // value; gradient (F32, nil unless trainable)
	// trainable parameters receive gradients; decay says whether weight
	// decay applies (not to norm weights).
	trainable, decay bool
	// aliased values share host memory the model does not own.
	aliased bool
	// norm marks a norm weight (always F32).
	norm bool
}

func (p *param) free(be compute.Backend) {
	if p.v != nil && !p.aliased {
		be.Free(p.v)
	}
	if p.g != nil {
		be.Free(p.g)
	}
	p.v, p.g = nil, nil
}

func numel(shape []int) int {
	n := 1
	for _, s := range shape {
		n *= s
	}
	return n
}

// add registers a parameter whose value the source (or init) fills.
func (m *Model) add(name string, shape []int, trainable, decay, norm bool) *param {
	p := &param{name: name, shape: shape, trainable: trainable, decay: decay, norm: norm}
	m.params = append(m.params, p)
	m.byName[name] = p
	return p
}

// dtypeFor is the dtype a base tensor stored as src takes.
func (m *Model) dtypeFor(p *param, src compute.DType) compute.DType {
	switch {
	case p.trainable || p.norm:
		return compute.F32
	case m.Options.BaseDType != 0:
		return m.Options.BaseDType
	}
	return src
}

// build lays out every parameter in trainer/autodiff's order, fills the
// base from src and initialises adapters and the score head.
func (m *Model) build(src Source) error {
	d, o := m.d, m.Options
	full := o.Train == pass.TrainAll
	loraTrain := o.Train == pass.TrainLoRA || o.Train == pass.TrainLoRAAndScore || full
	m.embed = m.add(qwen3.EmbedKey, []int{d.V, d.D}, full, true, false)
	m.layers = make([]layer, d.L)
	type pending struct {
		l     int
		p     qwen3.Proj
		in    int
		a, b  *param
		draws []float64
	}
	var adapters []pending
	rng := rand.New(rand.NewPCG(o.Seed, 0x10ad))
	for i := range m.layers {
		l := &m.layers[i]
		l.inNorm = m.add(qwen3.NormKeyOf(i, "input_layernorm"), []int{d.D}, full, false, true)
		for p := qwen3.Proj(0); p < qwen3.NumProj; p++ {
			out, in := d.shape(p)
			l.w[p] = m.add(qwen3.ProjKey(i, p), []int{out, in}, full, true, false)
			if o.LoRA != nil && o.LoRA.Adapts(p.Name()) {
				r := o.LoRA.R
				l.a[p] = m.add(lora.KeyA(i, p), []int{r, in}, loraTrain, true, false)
				l.b[p] = m.add(lora.KeyB(i, p), []int{out, r}, loraTrain, true, false)
				// PEFT's init, drawn as autodiff draws it (row-major over
				// its transposed [in, r] layout), so both networks start
				// from the same adapter.
				bound := lora.InitBound(in)
				dr := make([]float64, in*r)
				for j := range dr {
					dr[j] = (2*rng.Float64() - 1) * bound
				}
				adapters = append(adapters, pending{l: i, p: p, in: in, a: l.a[p], b: l.b[p], draws: dr})
			}
		}
		l.qNorm = m.add(qwen3.NormKeyOf(i, "self_attn.q_norm"), []int{d.hd}, full, false, true)
		l.kNorm = m.add(qwen3.NormKeyOf(i, "self_attn.k_norm"), []int{d.hd}, full, false, true)
		l.postNorm = m.add(qwen3.NormKeyOf(i, "post_attention_layernorm"), []int{d.D}, full, false, true)
	}
	m.norm = m.add(qwen3.NormKey, []int{d.D}, full, false, true)
	switch {
	case o.ScoreHead:
	case m.Config.TieWordEmbeddings:
		m.head = m.embed
	default:
		m.head = m.add(qwen3.HeadKey, []int{d.V, d.D}, full, true, false)
	}
	var scoreInit []float32
	if o.ScoreHead {
		m.score = m.add(qwen3.ScoreKey, []int{1, d.D}, full || o.Train == pass.TrainLoRAAndScore, true, false)
		scoreInit = make([]float32, d.D)
		for j := range scoreInit {
			scoreInit[j] = float32(rng.NormFloat64() * 0.02) // initializer_range
		}
	}
	base := map[string]*param{}
	for _, p := range m.params {
		if p != m.score && !isAdapter(p.name) {
			base[p.name] = p
		}
	}
	if m.score != nil {
		base[m.score.name] = m.score // optional: a reward checkpoint has it
	}
	if err := src.fill(m, base); err != nil {
		return err
	}
	for name, p := range base {
		if p.v == nil && p != m.score {
			return fmt.Errorf("weight %s is missing", name)
		}
	}
	if m.score != nil && m.score.v == nil {
		m.score.v = m.be.Alloc(compute.F32, d.D)
		m.be.Upload(m.score.v, scoreInit)
	}
	for _, ad := range adapters {
		out, r := ad.b.shape[0], o.LoRA.R
		a := make([]float32, r*ad.in)
		for j, v := range ad.draws { // draw j is element (j/r, j%r) of [in, r]
			a[(j%r)*ad.in+j/r] = float32(v)
		}
		b := make([]float32, out*r)
		if o.InitLoRA != nil {
			var err error
			if a, err = initTensor(o.InitLoRA, ad.a); err != nil {
				return err
			}
			if b, err = initTensor(o.InitLoRA, ad.b); err != nil {
				return err
			}
		}
		ad.a.v, ad.b.v = m.be.Alloc(compute.F32, len(a)), m.be.Alloc(compute.F32, len(b))
		m.be.Upload(ad.a.v, a)
		m.be.Upload(ad.b.v, b)
	}
	for _, p := range m.params {
		if p.trainable {
			p.g = m.be.Alloc(compute.F32, p.v.Len())
		}
	}
	return nil
}

func isAdapter(name string) bool {
	return len(name) > len(lora.Prefix) && name[:len(lora.Prefix)] == lora.Prefix
}

// initTensor fetches an InitLoRA tensor, checking its shape.
func initTensor(w qwen3.Weights, p *param) ([]float32, error) {
	t, ok := w[p.name]
	if !ok {
		return nil, fmt.Errorf("initialising adapter: weight %s is missing", p.name)
	}
	if !sameShape(t.Shape, p.shape) || len(t.Data) != numel(p.shape) {
		return nil, fmt.Errorf("initialising adapter: weight %s has shape %v, want %v", p.name, t.Shape, p.shape)
	}
	return append([]float32(nil), t.Data...), nil
}

func sameShape(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
