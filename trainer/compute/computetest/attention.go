package computetest

import (
	"fmt"
	"math"
	"math/rand"

	"mascot.dev/mascot/trainer/compute"
)

type attnShape struct {
	B, T, H, KV, D int
	lens           []int32
	// padGrad keeps dOut non-zero at padded queries (which attend to the
	// row's real keys); other shapes zero it there, as a loss does.
	padGrad bool
}

func (s attnShape) name() string {
	return fmt.Sprintf("B%d_T%d_H%d_KV%d_D%d_lens%v", s.B, s.T, s.H, s.KV, s.D, s.lens)
}

func attnShapes() []attnShape {
	return []attnShape{
		{B: 3, T: 37, H: 4, KV: 4, D: 16, lens: []int32{37, 1, 20}},
		{B: 2, T: 70, H: 4, KV: 2, D: 8, lens: []int32{70, 33}, padGrad: true},
		{B: 2, T: 130, H: 8, KV: 2, D: 32, lens: []int32{1, 129}},
		{B: 1, T: 1, H: 2, KV: 1, D: 4, lens: []int32{1}},
		{B: 1, T: 200, H: 2, KV: 1, D: 128, lens: []int32{200}},
	}
}

func attentionCases() []opCase {
	fwd, bwd := opCase{name: "Attention"}, opCase{name: "AttentionBackward"}
	for _, s := range attnShapes() {
		fwd.variants = append(fwd.variants, variant{name: s.name(), build: s.forward})
		bwd.variants = append(bwd.variants, variant{name: s.name(), build: s.backward})
	}
	return []opCase{fwd, bwd}
}

// attnInputs are one call's host tensors.
type attnInputs struct {
	s       attnShape
	q, k, v []float32
	scale   float64
}

func (s attnShape) inputs(r *rand.Rand) *attnInputs {
	nq, nkv := s.B*s.T*s.H*s.D, s.B*s.T*s.KV*s.D
	return &attnInputs{s: s, q: normal(r, nq, 2), k: normal(r, nkv, 1), v: normal(r, nkv, 1), scale: 1 / math.Sqrt(float64(s.D))}
}

func (in *attnInputs) qi(b, t, h int) int  { return ((b*in.s.T+t)*in.s.H + h) * in.s.D }
func (in *attnInputs) ki(b, t, kh int) int { return ((b*in.s.T+t)*in.s.KV + kh) * in.s.D }

// probs is query (b, h, t)'s softmax over its keys, and its log-sum-exp.
func (in *attnInputs) probs(b, h, t int) ([]float64, float64) {
	s := in.s
	kh := h / (s.H / s.KV)
	nk := min(t+1, int(s.lens[b]))
	sc := make([]float64, nk)
	mx := math.Inf(-1)
	for j := range sc {
		var d float64
		for e := 0; e < s.D; e++ {
			d += float64(in.q[in.qi(b, t, h)+e]) * float64(in.k[in.ki(b, j, kh)+e])
		}
		sc[j] = d * in.scale
		mx = math.Max(mx, sc[j])
	}
	var sum float64
	for _, v := range sc {
		sum += math.Exp(v - mx)
	}
	lse := mx + math.Log(sum)
	for j := range sc {
		sc[j] = math.Exp(sc[j] - lse)
	}
	return sc, lse
}

// forwardRef is the float64 Out and LSE.
func (in *attnInputs) forwardRef() (out, lse []float64) {
	s := in.s
	out, lse = make([]float64, len(in.q)), make([]float64, s.B*s.H*s.T)
	for b := 0; b < s.B; b++ {
		for h := 0; h < s.H; h++ {
			kh := h / (s.H / s.KV)
			for t := 0; t < s.T; t++ {
				p, l := in.probs(b, h, t)
				lse[(b*s.H+h)*s.T+t] = l
				for j, pj := range p {
					for e := 0; e < s.D; e++ {
						out[in.qi(b, t, h)+e] += pj * float64(in.v[in.ki(b, j, kh)+e])
					}
				}
			}
		}
	}
	return out, lse
}

func (in *attnInputs) attn(e *env) compute.Attn {
	s := in.s
	return compute.Attn{Q: e.f32(in.q), K: e.f32(in.k), V: e.f32(in.v), Lens: e.i32(s.lens),
		B: s.B, T: s.T, H: s.H, KV: s.KV, D: s.D, Scale: float32(in.scale)}
}

func (s attnShape) forward(r *rand.Rand) instance {
	in := s.inputs(r)
	out0 := normal(r, len(in.q), 1) // overwritten
	return instance{
		run: func(e *env) []output {
			a := in.attn(e)
			ov, ob := e.view(out0, 3)
			lv, lb := e.view(make([]float32, s.B*s.H*s.T), 2)
			a.Out, a.LSE = ov, lv
			e.b.Attention(a)
			return append(e.viewOut("Out", ob, 3, products), e.viewOut("LSE", lb, 2, products)...)
		},
		ref: func() map[string][]float64 {
			out, lse := in.forwardRef()
			return map[string][]float64{"Out": out, "LSE": lse}
		},
	}
}

func (s attnShape) backward(r *rand.Rand) instance {
	in := s.inputs(r)
	dOut := normal(r, len(in.q), 1)
	for b := 0; b < s.B && !s.padGrad; b++ {
		// A loss reads no padded position: no gradient flows into one.
		clear(dOut[in.qi(b, int(s.lens[b]), 0) : in.qi(b, s.T-1, s.H-1)+s.D])
	}
	garbage := normal(r, len(in.q), 1) // dQ, dK, dV are overwritten
	return instance{
		run: func(e *env) []output {
			a := in.attn(e)
			a.Out, a.LSE = e.alloc(compute.F32, len(in.q)), e.alloc(compute.F32, s.B*s.H*s.T)
			e.b.Attention(a)
			dq, dqb := e.view(garbage, 1)
			dk, dkb := e.view(garbage[:len(in.k)], 2)
			dv, dvb := e.view(garbage[:len(in.v)], 3)
			e.b.AttentionBackward(a, e.f32(dOut), dq, dk, dv)
			outs := e.viewOut("dQ", dqb, 1, products)
			outs = append(outs, e.viewOut("dK", dkb, 2, products)...)
			outs = append(outs, e.viewOut("dV", dvb, 3, products)...)
			for i := range outs {
				outs[i].floor = 1 // the inputs' scale: a row of one key has dQ = dK = 0 exactly
			}
			return outs
		},
		ref: func() map[string][]float64 {
			dq, dk, dv := make([]float64, len(in.q)), make([]float64, len(in.k)), make([]float64, len(in.v))
			out, _ := in.forwardRef()
			for b := 0; b < s.B; b++ {
				for h := 0; h < s.H; h++ {
					kh := h / (s.H / s.KV)
					for t := 0; t < s.T; t++ {
						p, _ := in.probs(b, h, t)
						qi := in.qi(b, t, h)
						var delta float64
						for e := 0; e < s.D; e++ {
							delta += float64(dOut[qi+e]) * out[qi+e]
						}
						for j, pj := range p {
							ki := in.ki(b, j, kh)
							var dp float64
							for e := 0; e < s.D; e++ {
								dp += float64(dOut[qi+e]) * float64(in.v[ki+e])
								dv[ki+e] += pj * float64(dOut[qi+e])
							}
							ds := pj * (dp - delta) * in.scale
							for e := 0; e < s.D; e++ {
								dq[qi+e] += ds * float64(in.k[ki+e])
								dk[ki+e] += ds * float64(in.q[qi+e])
							}
						}
					}
				}
			}
			return map[string][]float64{"dQ": dq, "dK": dk, "dV": dv}
		},
	}
}
