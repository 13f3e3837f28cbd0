package qwen3

import (
	"math"
	"testing"
)

// TestSwiGLUMatchesFormula checks swiGLU against silu(x)·u in float64
// over the activation's range (both signs, tiny and large magnitudes,
// ±Inf), on a length that is not a multiple of its block or of the
// vector width.
func TestSwiGLUMatchesFormula(t *testing.T) {
	var gate, up []float32
	for i := range 700 {
		x := float32(math.Pow(10, float64(i%23)/4-3)) // 1e-3 … ~3e2
		if i%2 == 1 {
			x = -x
		}
		gate = append(gate, x)
		up = append(up, float32(i%13)/7-0.9)
	}
	gate = append(gate, 0, float32(math.Inf(1)), -800, 800)
	up = append(up, 1, 1, 1, 1)
	want := make([]float64, len(gate))
	for i, x := range gate {
		want[i] = float64(x) / (1 + math.Exp(-float64(x))) * float64(up[i])
	}
	swiGLU(gate, up)
	for i, got := range gate {
		w := want[i]
		if math.IsInf(w, 0) || math.IsNaN(w) {
			if float64(got) != w {
				t.Fatalf("element %d: %g, want %g", i, got, w)
			}
			continue
		}
		if math.Abs(float64(got)-w) > 1e-6*math.Abs(w)+1e-30 {
			t.Fatalf("element %d: %g, want %g", i, got, w)
		}
	}
}

// TestSwiGLUSameBitsInEveryFamily checks that the AVX-512 loop (swiglu8)
// gives the portable loop's bits, NaN and both signs included, on a length
// with a remainder.
func TestSwiGLUSameBitsInEveryFamily(t *testing.T) {
	gate0, up := make([]float32, 523), make([]float32, 523)
	for i := range gate0 {
		gate0[i] = float32((i*7919)%1013)/60 - 8
		up[i] = float32((i*104729)%997)/300 - 1.5
	}
	gate0[5], gate0[6], gate0[7] = float32(math.NaN()), 0, float32(math.Copysign(0, -1))
	var ref []float32
	for _, fam := range kernelFamilies(t) {
		useKernels(fam)
		g := append([]float32(nil), gate0...)
		swiGLU(g, up)
		if ref == nil {
			ref = g
			continue
		}
		for i := range g {
			if math.Float32bits(g[i]) != math.Float32bits(ref[i]) {
				t.Fatalf("%s: element %d (x %g) is %g, portable gives %g", fam, i, gate0[i], g[i], ref[i])
			}
		}
	}
}
