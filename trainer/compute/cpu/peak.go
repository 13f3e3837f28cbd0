package cpu

import (
	"time"

	"mascot.dev/mascot/trainer/compute"
)

// MeasurePeak returns the best sgemm rate, in FLOP/s, of b on an n×n×n
// F32 product (one warm-up, then the fastest of three), so that a
// benchmark can report its own rate as a fraction of the BLAS peak
// measured in the same process and the same load.
func MeasurePeak(b *Backend, n int) float64 {
	x, y, z := b.Alloc(compute.F32, n*n), b.Alloc(compute.F32, n*n), b.Alloc(compute.F32, n*n)
	defer func() { b.Free(x); b.Free(y); b.Free(z) }()
	v := make([]float32, n*n)
	for i := range v {
		v[i] = float32(i%7) - 3
	}
	b.Upload(x, v)
	b.Upload(y, v)
	b.Gemm(false, false, n, n, n, 1, x, n, y, n, 0, z, n)
	best := time.Duration(1 << 62)
	for r := 0; r < 3; r++ {
		t0 := time.Now()
		b.Gemm(false, false, n, n, n, 1, x, n, y, n, 0, z, n)
		best = min(best, time.Since(t0))
	}
	return 2 * float64(n) * float64(n) * float64(n) / best.Seconds()
}
