package qwen3

import "math"

// swiGLU sets gate[i] = silu(gate[i])·up[i], the MLP's activation, for
// every row of a pass at once. silu(x) = x/(1+e^−x) takes its exponential
// from ExpNegs (vectorized) as e = e^−|x|: x/(1+e) for x ≥ 0, x·e/(1+e)
// below, in float64 before the float32 product with up; on an AVX-512 CPU
// eight elements at a time (swiglu8) with the same bits. One math.Exp per
// element cost a batch-8 decoding step of the engine suite's model about
// a tenth of its time. Each element's bits depend on its own two inputs
// only, so rows stay independent of the batch.
func swiGLU(gate, up []float32) {
	var buf [256]float64
	up = up[:len(gate)]
	for lo := 0; lo < len(gate); lo += len(buf) {
		g := gate[lo:min(lo+len(buf), len(gate))]
		u := up[lo : lo+len(g)]
		e := buf[:len(g)]
		for i, v := range g {
			e[i] = -math.Abs(float64(v))
		}
		ExpNegs(e)
		done := 0
		if zmmKernels && len(g) >= 8 {
			done = len(g) &^ 7
			swiglu8(&g[0], &e[0], &u[0], done)
		}
		for i := done; i < len(g); i++ {
			v := g[i]
			// x·1 is x, so one product covers both signs; a select
			// instead of a branch, which random signs would mispredict.
			x, n := float64(v), 1.0
			if x < 0 {
				n = e[i]
			}
			s := x * n / (1 + e[i])
			g[i] = float32(s) * u[i]
		}
	}
}
