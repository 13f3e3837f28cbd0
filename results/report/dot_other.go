//go:build !amd64

package report

// dotLanes4 adds to out[4k+l] w[i]·col_k[i] for every i ≡ l (mod 4) in
// ascending i, for len(w) a multiple of 4: it continues the four partial
// sums of dot for four columns.
func dotLanes4(w, a, b, c, d []float64, out *[16]float64) {
	for k, x := range [4][]float64{a, b, c, d} {
		x = x[:len(w)]
		s0, s1, s2, s3 := out[4*k], out[4*k+1], out[4*k+2], out[4*k+3]
		for i := 0; i+3 < len(w); i += 4 {
			s0 += w[i] * x[i]
			s1 += w[i+1] * x[i+1]
			s2 += w[i+2] * x[i+2]
			s3 += w[i+3] * x[i+3]
		}
		out[4*k], out[4*k+1], out[4*k+2], out[4*k+3] = s0, s1, s2, s3
	}
}

// wideKernel is off: dotLanes8 is AVX assembly on amd64 only.
var wideKernel = false

// dotLanes8 is dotLanes4 for eight columns.
func dotLanes8(w, x0, x1, x2, x3, x4, x5, x6, x7 []float64, out *[32]float64) {
	dotLanes4(w, x0, x1, x2, x3, (*[16]float64)(out[:16]))
	dotLanes4(w, x4, x5, x6, x7, (*[16]float64)(out[16:]))
}
