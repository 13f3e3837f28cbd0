package compute

import "testing"

func TestKeepRateAndDeterminism(t *testing.T) {
	const n, p = 200000, 0.1
	kept := 0
	for i := 0; i < n; i++ {
		k := Keep(7, i, p)
		if k != Keep(7, i, p) {
			t.Fatalf("element %d: Keep is not a function of (seed, i)", i)
		}
		if k {
			kept++
		}
	}
	if f := float64(kept) / n; f < 0.895 || f > 0.905 {
		t.Fatalf("kept fraction %.4f, want ≈ 0.9", f)
	}
	same := 0
	for i := 0; i < 1000; i++ {
		if Uniform(7, i) == Uniform(8, i) {
			same++
		}
	}
	if same > 5 {
		t.Fatalf("seeds 7 and 8 draw the same value %d times in 1000", same)
	}
}
