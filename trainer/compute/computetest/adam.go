package computetest

import (
	"math"
	"math/rand"

	"mascot.dev/mascot/trainer/compute"
)

func adamCases() []opCase {
	return []opCase{{name: "AdamW", variants: []variant{
		adamW("first_step", compute.Adam{LR: 1e-3, Beta1: 0.9, Beta2: 0.999, Eps: 1e-8, WeightDecay: 0.01, Step: 1, GradScale: 1}),
		adamW("step7_scaled_grad", compute.Adam{LR: 3e-4, Beta1: 0.8, Beta2: 0.95, Eps: 1e-6, WeightDecay: 0.1, Step: 7, GradScale: 0.25}),
		adamW("no_decay", compute.Adam{LR: 1e-2, Beta1: 0.9, Beta2: 0.999, Eps: 1e-8, Step: 1000, GradScale: 2}),
	}}}
}

func adamW(name string, a compute.Adam) variant {
	return variant{name: name, build: func(r *rand.Rand) instance {
		n := elementLen
		p, g := normal(r, n, 1), normal(r, n, 1)
		m, v := normal(r, n, 0.01), normal(r, n, 0.001)
		if a.Step == 1 {
			clear(m)
			clear(v)
		}
		for i := range v {
			v[i] = float32(math.Abs(float64(v[i])))
		}
		return instance{
			run: func(e *env) []output {
				pv, pb := e.view(p, 1)
				mv, mb := e.view(m, 2)
				vv, vb := e.view(v, 3)
				e.b.AdamW(pv, e.f32(g), mv, vv, a)
				outs := e.viewOut("param", pb, 1, f32)
				outs = append(outs, e.viewOut("m", mb, 2, f32)...)
				return append(outs, e.viewOut("v", vb, 3, f32)...)
			},
			ref: func() map[string][]float64 {
				P, M, V := widen(p), widen(m), widen(v)
				bc1 := 1 - math.Pow(a.Beta1, float64(a.Step))
				bc2 := 1 - math.Pow(a.Beta2, float64(a.Step))
				for i := range P {
					gi := float64(g[i]) * a.GradScale
					P[i] *= 1 - a.LR*a.WeightDecay
					M[i] = a.Beta1*M[i] + (1-a.Beta1)*gi
					V[i] = a.Beta2*V[i] + (1-a.Beta2)*gi*gi
					P[i] -= a.LR / bc1 * M[i] / (math.Sqrt(V[i])/math.Sqrt(bc2) + a.Eps)
				}
				return map[string][]float64{"param": P, "m": M, "v": V}
			},
		}
	}}
}
