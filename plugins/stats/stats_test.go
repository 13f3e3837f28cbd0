package stats

import (
	"math"
	"testing"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-12 }

// Units u1 = (1, 2), u2 = (3, 3): pairable values 1, 2, 3, 3 (n = 4).
//
// Interval, δ = (a-b)^2:
//
//	Do = (1/n) Σ_u 1/(m_u-1) Σ_{i≠j} δ = (1/4)(δ(1,2)+δ(2,1) + 0) = (1/4)(2) = 0.5
//	De = 1/(n(n-1)) Σ_{i≠j over all} δ; unordered pairs: (1,2)=1, (1,3)=4 twice,
//	     (2,3)=1 twice, (3,3)=0 -> 11, ordered 22 -> De = 22/12
//	alpha = 1 - 0.5/(22/12) = 1 - 6/22 = 8/11
//
// Ordinal, marginals n1 = 1, n2 = 1, n3 = 2:
//
//	δ(1,2) = (n1+n2 - (n1+n2)/2)^2 = 1; δ(1,3) = (4 - 1.5)^2 = 6.25; δ(2,3) = (3 - 1.5)^2 = 2.25
//	Do = (1/4)(2·1) = 0.5; De = (2/12)(1 + 2·6.25 + 2·2.25) = 18/6 = 3
//	alpha = 1 - 0.5/3 = 5/6
func TestKrippendorffByHand(t *testing.T) {
	units := [][]float64{{1, 2}, {3, 3}, {4}} // {4} is not pairable
	a, n, ok := KrippendorffAlpha(units, Interval)
	if !ok || n != 4 || !near(a, 8.0/11) {
		t.Fatalf("interval alpha = %v (n=%d ok=%v), want 8/11", a, n, ok)
	}
	a, _, ok = KrippendorffAlpha(units, Ordinal)
	if !ok || !near(a, 5.0/6) {
		t.Fatalf("ordinal alpha = %v, want 5/6", a)
	}
	// Perfect agreement with variation: alpha = 1.
	if a, _, ok := KrippendorffAlpha([][]float64{{1, 1}, {2, 2}, {5, 5}}, Interval); !ok || a != 1 {
		t.Fatalf("perfect: %v", a)
	}
	// No variation at all: undefined.
	if _, _, ok := KrippendorffAlpha([][]float64{{3, 3}, {3, 3}}, Interval); ok {
		t.Fatal("alpha defined without variation")
	}
}

// a = 1 2 3 3, b = 1 2 3 2: po = 3/4.
// Marginals a: 1 .25, 2 .25, 3 .5; b: 1 .25, 2 .5, 3 .25.
// pe = .25·.25 + .25·.5 + .5·.25 = .0625 + .125 + .125 = .3125
// kappa = (.75 - .3125)/(1 - .3125) = .4375/.6875 = 7/11
func TestCohenKappaByHand(t *testing.T) {
	k, ok := CohenKappa([]float64{1, 2, 3, 3}, []float64{1, 2, 3, 2})
	if !ok || !near(k, 7.0/11) {
		t.Fatalf("kappa = %v, want 7/11", k)
	}
	if _, ok := CohenKappa([]float64{1}, []float64{1, 2}); ok {
		t.Fatal("length mismatch accepted")
	}
}
