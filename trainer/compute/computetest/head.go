package computetest

import (
	"fmt"
	"math"
	"math/rand"

	"mascot.dev/mascot/trainer/compute"
)

type headShape struct {
	N, D, V int
	bf16    bool
	invTemp float32
	dHead   bool // backward: also the head's gradient
}

func (s headShape) name() string {
	n := fmt.Sprintf("N%d_D%d_V%d_invTemp%g", s.N, s.D, s.V, s.invTemp)
	if s.bf16 {
		n += "_bf16"
	}
	if s.dHead {
		n += "_dHead"
	}
	return n
}

func headCases() []opCase {
	shapes := []headShape{
		{N: 45, D: 24, V: 300, invTemp: 0.7},
		{N: 37, D: 64, V: 4099, invTemp: 1, bf16: true},
		{N: 3, D: 5, V: 1, invTemp: 1},
		{N: 130, D: 16, V: 2053, invTemp: 1.25},
	}
	fwd, bwd := opCase{name: "LogProbs"}, opCase{name: "LogProbsBackward"}
	for _, s := range shapes {
		fwd.variants = append(fwd.variants, variant{name: s.name(), build: s.forward})
		for _, dh := range []bool{false, true} {
			s.dHead = dh
			bwd.variants = append(bwd.variants, variant{name: s.name(), build: s.backward})
		}
	}
	return []opCase{fwd, bwd}
}

type headInputs struct {
	s            headShape
	hidden, head []float32
	targets      []int32
	class        class
}

func (s headShape) inputs(r *rand.Rand) *headInputs {
	in := &headInputs{s: s, hidden: normal(r, s.N*s.D, 1), head: normal(r, s.V*s.D, 3/math.Sqrt(float64(s.D))), class: products}
	if s.bf16 {
		in.head, in.class = bf16Values(in.head), bf16
	}
	in.targets = make([]int32, s.N)
	for i := range in.targets {
		switch r.Intn(5) {
		case 0:
			in.targets[i] = -1 - int32(r.Intn(100)) // no target
		default:
			in.targets[i] = int32(r.Intn(s.V))
		}
	}
	in.targets[0] = int32(s.V - 1)
	if s.N > 2 {
		in.targets[1], in.targets[2] = 0, -100
	}
	return in
}

// rowRef is row i's softmax probabilities and log-sum-exp.
func (in *headInputs) rowRef(i int) ([]float64, float64) {
	s := in.s
	z := make([]float64, s.V)
	mx := math.Inf(-1)
	for j := range z {
		var d float64
		for e := 0; e < s.D; e++ {
			d += float64(in.hidden[i*s.D+e]) * float64(in.head[j*s.D+e])
		}
		z[j] = d * float64(s.invTemp)
		mx = math.Max(mx, z[j])
	}
	var sum float64
	for _, v := range z {
		sum += math.Exp(v - mx)
	}
	lse := mx + math.Log(sum)
	for j := range z {
		z[j] = math.Exp(z[j] - lse)
	}
	return z, lse
}

func (in *headInputs) lmHead(e *env) compute.LMHead {
	s := in.s
	var w compute.Tensor
	if s.bf16 {
		w = e.bf16(in.head)
	} else {
		w = e.f32(in.head)
	}
	return compute.LMHead{Hidden: e.f32(in.hidden), Head: w, Targets: e.i32(in.targets), N: s.N, D: s.D, V: s.V, InvTemp: s.invTemp}
}

func (s headShape) forward(r *rand.Rand) instance {
	in := s.inputs(r)
	init := normal(r, 2*s.N, 1) // LogP and LSE are overwritten
	return instance{
		run: func(e *env) []output {
			h := in.lmHead(e)
			lp, lpb := e.view(init[:s.N], 2)
			ls, lsb := e.view(init[s.N:], 1)
			h.LogP, h.LSE = lp, ls
			e.b.LogProbs(h)
			return append(e.viewOut("LogP", lpb, 2, in.class), e.viewOut("LSE", lsb, 1, in.class)...)
		},
		ref: func() map[string][]float64 {
			lp, ls := make([]float64, s.N), make([]float64, s.N)
			for i, t := range in.targets {
				if t < 0 {
					continue // LogP 0, LSE 0
				}
				p, l := in.rowRef(i)
				lp[i], ls[i] = math.Log(p[t]), l
			}
			return map[string][]float64{"LogP": lp, "LSE": ls}
		},
	}
}

func (s headShape) backward(r *rand.Rand) instance {
	in := s.inputs(r)
	seed := normal(r, s.N, 1)
	dh0, dw0 := normal(r, s.N*s.D, 1), normal(r, s.V*s.D, 1) // accumulated into
	return instance{
		run: func(e *env) []output {
			h := in.lmHead(e)
			h.LogP, h.LSE = e.alloc(compute.F32, s.N), e.alloc(compute.F32, s.N)
			e.b.LogProbs(h)
			dh, dhb := e.view(dh0, 3)
			var dw, dwb compute.Tensor
			if s.dHead {
				dw, dwb = e.view(dw0, 2)
			}
			e.b.LogProbsBackward(h, e.f32(seed), dh, dw)
			outs := e.viewOut("dHidden", dhb, 3, in.class)
			if s.dHead {
				outs = append(outs, e.viewOut("dHead", dwb, 2, in.class)...)
			}
			return outs
		},
		ref: func() map[string][]float64 {
			dh, dw := widen(dh0), widen(dw0)
			for i, t := range in.targets {
				if t < 0 {
					continue
				}
				p, _ := in.rowRef(i)
				for j, pj := range p {
					g := -pj
					if j == int(t) {
						g++
					}
					g *= float64(seed[i]) * float64(s.invTemp)
					for e := 0; e < s.D; e++ {
						dh[i*s.D+e] += g * float64(in.head[j*s.D+e])
						dw[j*s.D+e] += g * float64(in.hidden[i*s.D+e])
					}
				}
			}
			return map[string][]float64{"dHidden": dh, "dHead": dw}
		},
	}
}
