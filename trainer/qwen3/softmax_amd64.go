//go:build amd64

package qwen3

// maxNaN8 is the largest of n float32 values (a positive multiple of 8)
// and whether any is NaN, in AVX2 (softmax_amd64.s).
//
//go:noescape
func maxNaN8(x *float32, n int) (top float32, nan bool)

// scaleShift8 sets p[i] = float64(x[i]/t) − mx for n values (a positive
// multiple of 8) in AVX2, with the Go loop's bits (softmax_amd64.s).
//
//go:noescape
func scaleShift8(p *float64, x *float32, n int, t float32, mx float64)

// maxFast returns the largest of the first n of x, n the largest multiple
// of 8, whether any of them is NaN, and n (0 where the AVX2 code does not
// run).
func maxFast(x []float32) (top float32, nan bool, n int) {
	n = len(x) &^ 7
	if !fmaKernels || n == 0 {
		return 0, false, 0
	}
	top, nan = maxNaN8(&x[0], n)
	return top, nan, n
}

// scaleShiftFast does scaleShift8 on the largest multiple of 8 of x and
// returns how many values it did.
func scaleShiftFast(p []float64, x []float32, t float32, mx float64) int {
	n := len(x) &^ 7
	if !fmaKernels || n == 0 {
		return 0
	}
	p = p[:len(x)]
	scaleShift8(&p[0], &x[0], n, t, mx)
	return n
}
