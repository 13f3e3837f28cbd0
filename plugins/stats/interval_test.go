package stats

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestIntervalAlphaMatchesPairwise checks the linear-time interval alpha
// against the pairwise definition on random units of 1 to 4 values on a
// 1-5 scale (singletons included, which neither counts).
func TestIntervalAlphaMatchesPairwise(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 1))
	for trial := 0; trial < 50; trial++ {
		units := make([][]float64, 1+r.IntN(40))
		for i := range units {
			units[i] = make([]float64, 1+r.IntN(4))
			for k := range units[i] {
				units[i][k] = float64(1 + r.IntN(5))
			}
		}
		want, wn, wok := KrippendorffAlpha(units, Interval)
		got, n, ok := KrippendorffAlphaInterval(units)
		if ok != wok || n != wn || (ok && math.Abs(got-want) > 1e-12) {
			t.Fatalf("trial %d: linear %v (n %d, ok %t), pairwise %v (n %d, ok %t)", trial, got, n, ok, want, wn, wok)
		}
	}
	if _, _, ok := KrippendorffAlphaInterval([][]float64{{3, 3}, {3, 3}}); ok {
		t.Error("alpha of values without variation is defined")
	}
}

// TestSpearmanByHand: ranks with ties at their mean, and the textbook
// 1 − 6Σd²/(n(n²−1)) where there are no ties.
func TestSpearmanByHand(t *testing.T) {
	a := []float64{1, 2, 3, 4, 5}
	b := []float64{2, 1, 4, 3, 5} // d = ±1 four times: 1 − 6·4/120 = 0.8
	if rho, ok := Spearman(a, b); !ok || math.Abs(rho-0.8) > 1e-15 {
		t.Fatalf("rho = %v, %t; want 0.8", rho, ok)
	}
	// Ties: ranks of {1, 2, 2, 3} are {1, 2.5, 2.5, 4}; against 1..4 the
	// Pearson correlation of ranks is 4.5/sqrt(5·4.5).
	rho, ok := Spearman([]float64{1, 2, 2, 3}, []float64{1, 2, 3, 4})
	if want := 4.5 / math.Sqrt(5*4.5); !ok || math.Abs(rho-want) > 1e-15 {
		t.Fatalf("tied rho = %v, want %v", rho, want)
	}
	if _, ok := Spearman([]float64{2, 2, 2}, []float64{1, 2, 3}); ok {
		t.Error("rho of a constant side is defined")
	}
	if rho, _ := Spearman([]float64{1, 2, 3}, []float64{3, 2, 1}); rho != -1 {
		t.Errorf("reversed order rho = %v, want -1", rho)
	}
}
