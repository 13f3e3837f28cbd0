package computetest

import (
	"math"
	"math/rand"

	"mascot.dev/mascot/trainer/compute"
)

// elementLen is odd and crosses any power-of-two chunk a backend splits by.
const elementLen = 40009

func elementCases() []opCase {
	binary := func(name string, apply func(e *env, d, s compute.Tensor), ref func(d, s float64) float64) opCase {
		return opCase{name: name, variants: []variant{{name: "view", build: func(r *rand.Rand) instance {
			d, s := normal(r, elementLen, 1), normal(r, elementLen, 1)
			return instance{
				run: func(e *env) []output {
					dv, db := e.view(d, 3)
					sv, _ := e.view(s, 5)
					apply(e, dv, sv)
					return e.viewOut("dst", db, 3, f32)
				},
				ref: func() map[string][]float64 {
					out := make([]float64, len(d))
					for i := range out {
						out[i] = ref(float64(d[i]), float64(s[i]))
					}
					return map[string][]float64{"dst": out}
				},
			}
		}}}}
	}
	const alpha = -0.375
	return []opCase{
		binary("Add", func(e *env, d, s compute.Tensor) { e.b.Add(d, s) }, func(d, s float64) float64 { return d + s }),
		binary("Axpy", func(e *env, d, s compute.Tensor) { e.b.Axpy(d, alpha, s) }, func(d, s float64) float64 { return d + alpha*s }),
		binary("Scale", func(e *env, d, _ compute.Tensor) { e.b.Scale(d, alpha) }, func(d, _ float64) float64 { return alpha * d }),
		binary("Copy", func(e *env, d, s compute.Tensor) { e.b.Copy(d, s) }, func(_, s float64) float64 { return s }),
		binary("Zero", func(e *env, d, _ compute.Tensor) { e.b.Zero(d) }, func(_, _ float64) float64 { return 0 }),
		{name: "SumSquares", variants: []variant{sumSquares(elementLen*5+3, 1), sumSquares(1, 3), sumSquares(0, 1)}},
		{name: "SwiGLU", variants: []variant{{name: "view", build: swiGLU}}},
		{name: "SwiGLUBackward", variants: []variant{{name: "view", build: swiGLUBackward}}},
		{name: "Dropout", variants: []variant{dropout(0.3, 11), dropout(0, 12), dropout(0.9, 13)}},
	}
}

func sumSquares(n int, sd float64) variant {
	return variant{name: "n" + itoa(n), build: func(r *rand.Rand) instance {
		v := normal(r, n, sd)
		for i := 0; i < n; i += 997 {
			v[i] *= 1000 // magnitudes a float32 sum would lose
		}
		return instance{
			run: func(e *env) []output {
				var s float64
				if n > 0 {
					vv, _ := e.view(v, 2)
					s = e.b.SumSquares(vv)
				} else {
					s = e.b.SumSquares(e.alloc(compute.F32, 0))
				}
				return []output{{name: "sum", got: []float64{s}, class: f64}}
			},
			ref: func() map[string][]float64 {
				var s float64
				for _, x := range v {
					s += float64(x) * float64(x)
				}
				return map[string][]float64{"sum": {s}}
			},
		}
	}}
}

// gateValues are N(0, 3²) with some far into both tails of the sigmoid.
func gateValues(r *rand.Rand, n int) []float32 {
	g := normal(r, n, 3)
	for i := 0; i < n; i += 101 {
		g[i] = float32(r.Float64()*120 - 60)
	}
	return g
}

func sigmoid(x float64) float64 { return 1 / (1 + math.Exp(-x)) }

func swiGLU(r *rand.Rand) instance {
	g, u := gateValues(r, elementLen), normal(r, elementLen, 1)
	return instance{
		run: func(e *env) []output {
			ov, ob := e.view(make([]float32, elementLen), 2)
			e.b.SwiGLU(ov, e.f32(g), e.f32(u))
			return e.viewOut("out", ob, 2, f32)
		},
		ref: func() map[string][]float64 {
			out := make([]float64, len(g))
			for i := range out {
				x := float64(g[i])
				out[i] = x * sigmoid(x) * float64(u[i])
			}
			return map[string][]float64{"out": out}
		},
	}
}

func swiGLUBackward(r *rand.Rand) instance {
	g, u, d := gateValues(r, elementLen), normal(r, elementLen, 1), normal(r, elementLen, 1)
	dg0, du0 := normal(r, elementLen, 1), normal(r, elementLen, 1) // overwritten
	return instance{
		run: func(e *env) []output {
			gv, gb := e.view(dg0, 2)
			uv, ub := e.view(du0, 3)
			e.b.SwiGLUBackward(gv, uv, e.f32(d), e.f32(g), e.f32(u))
			return append(e.viewOut("dGate", gb, 2, f32), e.viewOut("dUp", ub, 3, f32)...)
		},
		ref: func() map[string][]float64 {
			dg, du := make([]float64, len(g)), make([]float64, len(g))
			for i := range dg {
				x, y, o := float64(g[i]), float64(u[i]), float64(d[i])
				s := sigmoid(x)
				du[i] = o * x * s
				dg[i] = o * y * s * (1 + x*(1-s))
			}
			return map[string][]float64{"dGate": dg, "dUp": du}
		},
	}
}

func dropout(p float32, seed uint64) variant {
	return variant{name: "p" + ftoa(float64(p)), build: func(r *rand.Rand) instance {
		src, dst0 := normal(r, elementLen, 1), normal(r, elementLen, 1)
		return instance{
			run: func(e *env) []output {
				sv, _ := e.view(src, 6)
				dv, db := e.view(dst0, 1)
				e.b.Dropout(dv, sv, p, seed)
				return e.viewOut("dst", db, 1, f32)
			},
			ref: func() map[string][]float64 {
				out := make([]float64, len(src))
				for i := range out {
					if compute.Keep(seed, i, p) {
						out[i] = float64(src[i]) / (1 - float64(p))
					}
				}
				return map[string][]float64{"dst": out}
			},
		}
	}}
}
