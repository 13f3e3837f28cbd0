package qwen3

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
)

// attendHead computes one query head's attention over n cached positions:
// p[t] = scaling·(q·k_t), p = softmax(p), o = Σ_t p[t]·v_t, with k_t and
// v_t the d floats at kc[t·ld:] and vc[t·ld:] (one key-value head's slice
// of the cache rows). p must hold n floats.
//
// Its arithmetic depends only on the CPU, d and the sequence's own cache,
// never on the other rows of the pass (docs/design/batch-invariance.md).
// On an AVX-512 CPU with d a multiple of 16 the scores are the matrix
// kernels' dot products and the weighted sum one fused multiply-add per
// position, in position order (wsumz): a few calls per head instead of two
// BLAS calls per position, which at decoding's short contexts cost more
// than the arithmetic. Elsewhere gonum's Sgemv does both.
func attendHead(q, kc, vc []float32, ld, n, d int, scaling float32, p, o []float32) {
	p = p[:n]
	o = o[:d]
	if !zmmKernels || d%16 != 0 {
		blas32.Gemv(blas.NoTrans, scaling,
			blas32.General{Rows: n, Cols: d, Stride: ld, Data: kc},
			blas32.Vector{N: d, Inc: 1, Data: q}, 0,
			blas32.Vector{N: n, Inc: 1, Data: p})
		softmaxInPlace(p)
		blas32.Gemv(blas.Trans, 1,
			blas32.General{Rows: n, Cols: d, Stride: ld, Data: vc},
			blas32.Vector{N: n, Inc: 1, Data: p}, 0,
			blas32.Vector{N: d, Inc: 1, Data: o})
		return
	}
	_ = kc[(n-1)*ld+d-1]
	_ = vc[(n-1)*ld+d-1]
	t := 0
	for ; t+8 <= n; t += 8 {
		dot1x8z(&q[0], &kc[t*ld], ld, d, &p[t], 1, false)
	}
	for ; t < n; t++ {
		dot1x1z(&q[0], &kc[t*ld], d, &p[t], false)
	}
	for i := range p {
		p[i] *= scaling
	}
	softmaxInPlace(p)
	wsumz(&o[0], &p[0], &vc[0], ld, n, d)
}
