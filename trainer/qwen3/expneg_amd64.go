//go:build amd64

package qwen3

// expNegs4 is ExpNegs on n values (a multiple of 4) in AVX2, with the Go
// loop's bits (expneg_amd64.s).
//
//go:noescape
func expNegs4(x *float64, n int, c *[13][4]float64)

// expNegs8z is expNegs4 with eight lanes in AVX-512F, n a multiple of 8
// (expnegz_amd64.s).
//
//go:noescape
func expNegs8z(x *float64, n int, c *[13][4]float64)

// expConsts are expNegs4's constants, each four times.
var expConsts = func() (c [13][4]float64) {
	for i, v := range [13]float64{log2E, 0.5, ln2, 1, 1.0 / 2, 1.0 / 6, 1.0 / 24, 1.0 / 120, 1.0 / 720, 1.0 / 5040, 1.0 / 40320, -708, 1023} {
		c[i] = [4]float64{v, v, v, v}
	}
	return c
}()

// expNegsFast runs the vector code on the largest multiple of 4 of x (of
// 8 in AVX-512, then four more in AVX2 where they are left) and returns
// how many values it did.
func expNegsFast(x []float64) int {
	n := len(x) &^ 3
	if !fmaKernels || n == 0 {
		return 0
	}
	done := 0
	if n8 := len(x) &^ 7; zmmKernels && n8 > 0 {
		expNegs8z(&x[0], n8, &expConsts)
		done = n8
	}
	if done < n {
		expNegs4(&x[done], n-done, &expConsts)
	}
	return n
}
