package computetest

import (
	"math"
	"math/rand"
)

func normCases() []opCase {
	return []opCase{
		{name: "RMSNorm", variants: []variant{rmsNorm(13, 67, false), rmsNorm(1, 1024, false), rmsNorm(9, 31, true)}},
		{name: "RMSNormBackward", variants: []variant{
			rmsNormBackward(13, 67, false, true), rmsNormBackward(29, 130, true, true), rmsNormBackward(5, 33, true, false),
		}},
		{name: "RoPE", variants: []variant{rope(11, 3, 10, false), rope(11, 3, 10, true), rope(23, 2, 128, false), rope(7, 5, 2, true)}},
	}
}

const rmsEps = 1e-6

// rmsRef is the float64 RMSNorm of x: out and rstd.
func rmsRef(x, w []float32, rows, dim int) (out, rstd []float64) {
	out, rstd = make([]float64, rows*dim), make([]float64, rows)
	for i := 0; i < rows; i++ {
		var ss float64
		for j := 0; j < dim; j++ {
			ss += float64(x[i*dim+j]) * float64(x[i*dim+j])
		}
		rstd[i] = 1 / math.Sqrt(ss/float64(dim)+rmsEps)
		for j := 0; j < dim; j++ {
			out[i*dim+j] = float64(x[i*dim+j]) * rstd[i] * float64(w[j])
		}
	}
	return out, rstd
}

func rmsNorm(rows, dim int, inPlace bool) variant {
	name := itoa(rows) + "x" + itoa(dim)
	if inPlace {
		name += "_in_place"
	}
	return variant{name: name, build: func(r *rand.Rand) instance {
		x, w := normal(r, rows*dim, 2), normal(r, dim, 1)
		x[0] = 0 // a row need not be all non-zero
		return instance{
			run: func(e *env) []output {
				xv, xb := e.view(x, 3)
				rv, rb := e.view(make([]float32, rows), 1)
				ov, ob := xv, xb
				if !inPlace {
					ov, ob = e.view(make([]float32, rows*dim), 2)
				}
				e.b.RMSNorm(ov, rv, xv, e.f32(w), rows, dim, rmsEps)
				pad := 2
				if inPlace {
					pad = 3
				}
				return append(e.viewOut("out", ob, pad, f32), e.viewOut("rstd", rb, 1, f32)...)
			},
			ref: func() map[string][]float64 {
				out, rstd := rmsRef(x, w, rows, dim)
				return map[string][]float64{"out": out, "rstd": rstd}
			},
		}
	}}
}

func rmsNormBackward(rows, dim int, accumulate, withDW bool) variant {
	name := itoa(rows) + "x" + itoa(dim)
	if accumulate {
		name += "_accumulate"
	}
	if !withDW {
		name += "_no_dw"
	}
	return variant{name: name, build: func(r *rand.Rand) instance {
		x, w, dy := normal(r, rows*dim, 2), normal(r, dim, 1), normal(r, rows*dim, 1)
		dx0, dw0 := normal(r, rows*dim, 1), normal(r, dim, 1)
		_, rstd := rmsRef(x, w, rows, dim)
		rs := make([]float32, rows)
		for i, v := range rstd {
			rs[i] = float32(v)
		}
		return instance{
			run: func(e *env) []output {
				dxv, dxb := e.view(dx0, 2)
				dwv, dwb := e.view(dw0, 1)
				if !withDW {
					dwv = nil
				}
				e.b.RMSNormBackward(dxv, dwv, e.f32(dy), e.f32(x), e.f32(w), e.f32(rs), rows, dim, accumulate)
				outs := e.viewOut("dx", dxb, 2, f32)
				return append(outs, e.viewOut("dw", dwb, 1, f32)...)
			},
			ref: func() map[string][]float64 {
				dx, dw := widen(dx0), widen(dw0)
				for i := 0; i < rows; i++ {
					rr := float64(rs[i])
					var dot float64
					for j := 0; j < dim; j++ {
						dot += float64(dy[i*dim+j]) * float64(w[j]) * float64(x[i*dim+j])
					}
					for j := 0; j < dim; j++ {
						k := i*dim + j
						g := rr*float64(dy[k])*float64(w[j]) - float64(x[k])*rr*rr*rr*dot/float64(dim)
						if accumulate {
							dx[k] += g
						} else {
							dx[k] = g
						}
						if withDW {
							dw[j] += float64(dy[k]) * float64(x[k]) * rr
						}
					}
				}
				return map[string][]float64{"dx": dx, "dw": dw}
			},
		}
	}}
}

func rope(rows, heads, dim int, inverse bool) variant {
	name := itoa(rows) + "x" + itoa(heads) + "x" + itoa(dim)
	if inverse {
		name += "_inverse"
	}
	const maxPos = 50
	return variant{name: name, build: func(r *rand.Rand) instance {
		half := dim / 2
		x := normal(r, rows*heads*dim, 1)
		pos := make([]int32, rows)
		for i := range pos {
			pos[i] = int32(r.Intn(maxPos))
		}
		pos[0] = maxPos - 1
		cs, sn := make([]float32, maxPos*half), make([]float32, maxPos*half)
		for p := 0; p < maxPos; p++ {
			for i := 0; i < half; i++ {
				ang := float64(p) / math.Pow(10000, float64(2*i)/float64(dim))
				cs[p*half+i], sn[p*half+i] = float32(math.Cos(ang)), float32(math.Sin(ang))
			}
		}
		return instance{
			run: func(e *env) []output {
				xv, xb := e.view(x, 4)
				e.b.RoPE(xv, e.i32(pos), e.f32(cs), e.f32(sn), rows, heads, dim, inverse)
				return e.viewOut("x", xb, 4, f32)
			},
			ref: func() map[string][]float64 {
				out := make([]float64, len(x))
				for rr := 0; rr < rows; rr++ {
					for h := 0; h < heads; h++ {
						for i := 0; i < half; i++ {
							k := (rr*heads+h)*dim + i
							c, s := float64(cs[int(pos[rr])*half+i]), float64(sn[int(pos[rr])*half+i])
							if inverse {
								s = -s
							}
							x1, x2 := float64(x[k]), float64(x[k+half])
							out[k], out[k+half] = x1*c-x2*s, x2*c+x1*s
						}
					}
				}
				return map[string][]float64{"x": out}
			},
		}
	}}
}
