package computetest

import (
	"fmt"
	"math/rand"

	"mascot.dev/mascot/trainer/compute"
)

// gemmShape is one Gemm call: stored A is m×k (k×m transposed) with row
// stride lda, B k×n (n×k), C m×n with ldc; operands sit at an offset
// inside larger buffers.
type gemmShape struct {
	ta, tb       bool
	m, n, k      int
	pad          int // extra elements per row beyond the width
	alpha, beta  float32
	aBF16, bBF16 bool
	nanC         bool
}

func (s gemmShape) name() string {
	tr := func(t bool) string {
		if t {
			return "T"
		}
		return "N"
	}
	dt := func(b bool) string {
		if b {
			return "bf16"
		}
		return "f32"
	}
	n := fmt.Sprintf("%s%s_%dx%dx%d_%s·%s_alpha%g_beta%g", tr(s.ta), tr(s.tb), s.m, s.n, s.k, dt(s.aBF16), dt(s.bBF16), s.alpha, s.beta)
	if s.nanC {
		n += "_NaN_C"
	}
	return n
}

func gemmCases() []opCase {
	var vs []gemmShape
	for _, ta := range []bool{false, true} {
		for _, tb := range []bool{false, true} {
			vs = append(vs,
				gemmShape{ta: ta, tb: tb, m: 37, n: 29, k: 53, pad: 3, alpha: 0.75, beta: 0, nanC: true},
				gemmShape{ta: ta, tb: tb, m: 45, n: 301, k: 67, pad: 1, alpha: 1, beta: 0, bBF16: true},
				gemmShape{ta: ta, tb: tb, m: 130, n: 19, k: 33, pad: 2, alpha: -0.5, beta: 1, aBF16: true},
			)
		}
	}
	vs = append(vs,
		gemmShape{m: 23, n: 41, k: 17, alpha: 1, beta: 1},
		gemmShape{tb: true, m: 31, n: 57, k: 40, pad: 5, alpha: 2, beta: 0.5, aBF16: true, bBF16: true},
		gemmShape{tb: true, m: 1, n: 257, k: 129, alpha: 1, beta: 0, bBF16: true, nanC: true},
		gemmShape{m: 1, n: 1, k: 1, alpha: 1, beta: 0},
		gemmShape{m: 7, n: 5, k: 0, alpha: 1, beta: 0.5},
		gemmShape{m: 7, n: 5, k: 0, alpha: 1, beta: 0, nanC: true},
		gemmShape{m: 9, n: 6, k: 4, alpha: 0, beta: 0.25},
	)
	c := opCase{name: "Gemm"}
	for _, s := range vs {
		c.variants = append(c.variants, variant{name: s.name(), build: s.build})
	}
	return []opCase{c}
}

func (s gemmShape) build(r *rand.Rand) instance {
	ar, ac := s.m, s.k
	if s.ta {
		ar, ac = s.k, s.m
	}
	br, bc := s.k, s.n
	if s.tb {
		br, bc = s.n, s.k
	}
	lda, ldb, ldc := max(1, ac+s.pad), max(1, bc+s.pad), max(1, s.n+s.pad)
	const off = 5
	a := normal(r, off+ar*lda, 1)
	bm := normal(r, off+br*ldb, 1)
	if s.aBF16 {
		a = bf16Values(a)
	}
	if s.bBF16 {
		bm = bf16Values(bm)
	}
	c0 := normal(r, s.m*ldc, 1)
	if s.nanC {
		c0 = nans(len(c0))
	}
	cl := class(products)
	if s.aBF16 || s.bBF16 {
		cl = bf16
	}
	opA := func(i, l int) float64 {
		if s.ta {
			return float64(a[off+l*lda+i])
		}
		return float64(a[off+i*lda+l])
	}
	opB := func(l, j int) float64 {
		if s.tb {
			return float64(bm[off+j*ldb+l])
		}
		return float64(bm[off+l*ldb+j])
	}
	upload := func(e *env, v []float32, isBF bool) compute.Tensor {
		if isBF {
			t := e.bf16(v)
			return e.b.Slice(t, off, len(v)-off)
		}
		t := e.f32(v)
		return e.b.Slice(t, off, len(v)-off)
	}
	return instance{
		run: func(e *env) []output {
			A, B := upload(e, a, s.aBF16), upload(e, bm, s.bBF16)
			cv, cbase := e.view(c0, 7)
			e.b.Gemm(s.ta, s.tb, s.m, s.n, s.k, s.alpha, A, lda, B, ldb, s.beta, cv, ldc)
			return e.viewOut("C", cbase, 7, cl)
		},
		ref: func() map[string][]float64 {
			out := make([]float64, len(c0))
			for i := range out {
				out[i] = float64(c0[i]) // the padding columns of each row stay
			}
			for i := 0; i < s.m; i++ {
				for j := 0; j < s.n; j++ {
					var acc float64
					for l := 0; l < s.k; l++ {
						acc += opA(i, l) * opB(l, j)
					}
					v := float64(s.alpha) * acc
					if s.beta != 0 {
						v += float64(s.beta) * float64(c0[i*ldc+j])
					}
					out[i*ldc+j] = v
				}
			}
			return map[string][]float64{"C": out}
		},
	}
}
