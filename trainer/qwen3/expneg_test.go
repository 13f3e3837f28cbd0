package qwen3

import (
	"math"
	"testing"
)

// ExpNeg agrees with math.Exp to 1e-8 relative error on x ≤ 0 and is 0
// where e^x underflows.
func TestExpNegMatchesExp(t *testing.T) {
	for x := 0.0; x > -720; x -= 0.0137 {
		want := math.Exp(x)
		got := ExpNeg(x)
		if x < -708 {
			if got != 0 {
				t.Fatalf("ExpNeg(%g) = %g, want 0", x, got)
			}
			continue
		}
		if math.Abs(got-want) > 1e-8*want {
			t.Fatalf("ExpNeg(%g) = %.17g, math.Exp %.17g", x, got, want)
		}
	}
	if ExpNeg(0) != 1 {
		t.Errorf("ExpNeg(0) = %g", ExpNeg(0))
	}
}

// ExpNegs gives every value the bits ExpNeg (the scalar loop) gives it,
// wherever it sits in the slice, with every kernel family this CPU runs
// (AVX-512, AVX2): the vector code does the same operations in the same
// order.
func TestExpNegsVectorEqualsScalar(t *testing.T) {
	xs := []float64{0, math.Copysign(0, -1), -1e-300, -0.3465, -0.34658, -1, -2.5, -707.9, -708, -708.1, -745, -1e6,
		math.Inf(-1), math.NaN(), 0.3}
	for x := 0.0; x > -720; x -= 0.00731 {
		xs = append(xs, x)
	}
	for _, fam := range kernelFamilies(t) {
		useKernels(fam)
		for off := range 8 { // every value at every lane
			v := append(make([]float64, off), xs...)
			for i := range off {
				v[i] = -1
			}
			ExpNegs(v)
			for i, x := range xs {
				want := ExpNeg(x)
				if got := v[off+i]; math.Float64bits(got) != math.Float64bits(want) && !(math.IsNaN(got) && math.IsNaN(want)) {
					t.Fatalf("kernels %s offset %d: ExpNegs(%g) = %v (%#x), ExpNeg %v (%#x)", fam, off, x, got, math.Float64bits(got), want, math.Float64bits(want))
				}
			}
		}
	}
}

// BenchmarkExpNegs exponentiates a vocabulary-sized row (vector code on
// AVX2 CPUs against the scalar loop).
func BenchmarkExpNegs(b *testing.B) {
	x := make([]float64, 49152)
	for _, vec := range []bool{true, false} {
		name := "scalar"
		if vec {
			name = "vector"
		}
		b.Run(name, func(b *testing.B) {
			defer func(k bool) { fmaKernels = k }(fmaKernels)
			fmaKernels = fmaKernels && vec
			for b.Loop() {
				for i := range x {
					x[i] = -float64(i%1000) / 50
				}
				ExpNegs(x)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(x)), "ns/value")
		})
	}
}
