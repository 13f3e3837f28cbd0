package qwen3

import "math"

// ExpNeg returns e^x for x ≤ 0 within 1e-8 relative error (0 below
// −708), several times faster than math.Exp. It is ExpNegs on one value;
// loops over many values call ExpNegs, which keeps the polynomial inside
// the loop (ExpNeg itself is too large for the compiler to inline).
func ExpNeg(x float64) float64 {
	v := [1]float64{x}
	ExpNegs(v[:])
	return v[0]
}

// ExpNegs replaces every x[i] ≤ 0 with e^x[i], as ExpNeg: x = k·ln2 + r
// with |r| ≤ ln2/2, e^r by its degree-8 Taylor polynomial, 2^k by the
// exponent bits. Attention softmaxes (decoding here, training in
// trainer/autodiff) and the samplers' softmax over the vocabulary spend
// most of their time in it. On an AVX2 CPU four values go at a time
// (expneg_amd64.s) with the same operations in the same order, so a value
// gets the same bits wherever it sits in x.
func ExpNegs(x []float64) {
	for i := expNegsFast(x); i < len(x); i++ {
		v := x[i]
		if v < -708 {
			x[i] = 0
			continue
		}
		k := int64(float64(v*log2E) - 0.5) // round to nearest for v ≤ 0
		// The float64 conversions forbid fused multiply-adds (which some
		// targets would use), so the bits are those of the vector code.
		r := v - float64(float64(k)*ln2)
		// Estrin's scheme: the same polynomial as Horner's, with a shorter
		// chain of dependent multiply-adds.
		r2 := r * r
		r4 := r2 * r2
		a := 1.0/2 + float64(r*(1.0/6))
		b := (1.0/24 + float64(r*(1.0/120))) + float64(r2*(1.0/720+float64(r*(1.0/5040))))
		b += float64(r4 * (1.0 / 40320))
		p := ((1 + r) + float64(r2*a)) + float64(r4*b)
		x[i] = p * math.Float64frombits(uint64(k+1023)<<52)
	}
}

const (
	log2E = math.Log2E
	ln2   = math.Ln2
)
