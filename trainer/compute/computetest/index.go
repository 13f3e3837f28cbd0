package computetest

import (
	"math/rand"

	"mascot.dev/mascot/trainer/compute"
)

func indexCases() []opCase {
	gather := func(rows, dim, n int, isBF bool) variant {
		name := "f32"
		if isBF {
			name = "bf16"
		}
		return variant{name: name, build: func(r *rand.Rand) instance {
			src := normal(r, rows*dim, 1)
			if isBF {
				src = bf16Values(src)
			}
			idx := make([]int32, n)
			for i := range idx {
				idx[i] = int32(r.Intn(rows))
			}
			idx[0], idx[n-1] = 0, int32(rows-1) // both ends of the table
			return instance{
				run: func(e *env) []output {
					var S compute.Tensor
					if isBF {
						S = e.bf16(src)
					} else {
						S = e.f32(src)
					}
					ov, ob := e.view(make([]float32, n*dim), 3)
					e.b.Gather(ov, S, e.i32(idx), dim)
					return e.viewOut("out", ob, 3, exact)
				},
				ref: func() map[string][]float64 {
					out := make([]float64, n*dim)
					for i, ix := range idx {
						for j := 0; j < dim; j++ {
							out[i*dim+j] = float64(src[int(ix)*dim+j])
						}
					}
					return map[string][]float64{"out": out}
				},
			}
		}}
	}
	scatter := func(name string, rows, dim, n int) variant {
		return variant{name: name, build: func(r *rand.Rand) instance {
			src := normal(r, n*dim, 1)
			dst := normal(r, rows*dim, 1)
			idx := make([]int32, n)
			for i := range idx {
				idx[i] = int32(r.Intn(rows))
			}
			for i := 0; i < n/3; i++ {
				idx[i] = 2 // a row hit many times
			}
			return instance{
				run: func(e *env) []output {
					dv, db := e.view(dst, 4)
					e.b.ScatterAdd(dv, e.f32(src), e.i32(idx), dim)
					return e.viewOut("dst", db, 4, f32)
				},
				ref: func() map[string][]float64 {
					out := widen(dst)
					for i, ix := range idx {
						for j := 0; j < dim; j++ {
							out[int(ix)*dim+j] += float64(src[i*dim+j])
						}
					}
					return map[string][]float64{"dst": out}
				},
			}
		}}
	}
	return []opCase{
		{name: "Gather", variants: []variant{gather(50, 13, 37, false), gather(61, 130, 29, true)}},
		{name: "ScatterAdd", variants: []variant{scatter("repeated_rows", 9, 17, 100), scatter("wide", 40, 515, 33)}},
	}
}
