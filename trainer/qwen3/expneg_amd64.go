//go:build amd64

package qwen3

// expNegs4 is ExpNegs on n values (a multiple of 4) in AVX2, with the Go
// loop's bits (expneg_amd64.s).
//
//go:noescape
func expNegs4(x *float64, n int, c *[13][4]float64)

// expConsts are expNegs4's constants, each four times.
var expConsts = func() (c [13][4]float64) {
	for i, v := range [13]float64{log2E, 0.5, ln2, 1, 1.0 / 2, 1.0 / 6, 1.0 / 24, 1.0 / 120, 1.0 / 720, 1.0 / 5040, 1.0 / 40320, -708, 1023} {
		c[i] = [4]float64{v, v, v, v}
	}
	return c
}()

// expNegsFast runs the vector code on the largest multiple of 4 of x and
// returns how many values it did.
func expNegsFast(x []float64) int {
	n := len(x) &^ 3
	if !fmaKernels || n == 0 {
		return 0
	}
	expNegs4(&x[0], n, &expConsts)
	return n
}
