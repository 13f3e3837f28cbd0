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
