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
// trainer/autodiff) spend most of their time in it.
func ExpNegs(x []float64) {
	for i, v := range x {
		if v < -708 {
			x[i] = 0
			continue
		}
		k := int64(v*math.Log2E - 0.5) // round to nearest for v ≤ 0
		r := v - float64(k)*math.Ln2
		// Estrin's scheme: the same polynomial as Horner's, with a shorter
		// chain of dependent multiply-adds.
		r2 := r * r
		r4 := r2 * r2
		p := (1 + r) + r2*(1.0/2+r*(1.0/6)) + r4*((1.0/24+r*(1.0/120))+r2*(1.0/720+r*(1.0/5040))+r4*(1.0/40320))
		x[i] = p * math.Float64frombits(uint64(k+1023)<<52)
	}
}
