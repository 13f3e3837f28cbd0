package cpu

import "mascot.dev/mascot/trainer/compute"

// Gemm implements compute.Backend. F32 operands go to the BLAS as they
// are. A BF16 operand is widened (exactly) into a reused F32 scratch in
// blocks of at most Blocks.GemmConvert elements — rows of op(A), columns
// of op(B) — and each block is one sgemm into its part of C, so the
// conversion costs one pass over the weight per call, next to m passes of
// the product.
func (b *Backend) Gemm(transA, transB bool, m, n, k int, alpha float32, a compute.Tensor, lda int, bt compute.Tensor, ldb int, beta float32, c compute.Tensor, ldc int) {
	const op = "Gemm"
	if b.err != nil {
		return
	}
	if m < 0 || n < 0 || k < 0 {
		b.fail(op, "negative size m=%d n=%d k=%d", m, n, k)
		return
	}
	ar, ac := stored(transA, m, k)
	br, bc := stored(transB, k, n)
	if lda < max(1, ac) || ldb < max(1, bc) || ldc < max(1, n) {
		b.fail(op, "leading dimensions lda=%d ldb=%d ldc=%d are below the rows' widths %d, %d, %d", lda, ldb, ldc, ac, bc, n)
		return
	}
	A := b.arg(op, "a", a, need(ar, ac, lda), compute.F32, compute.BF16)
	B := b.arg(op, "b", bt, need(br, bc, ldb), compute.F32, compute.BF16)
	C := b.arg(op, "c", c, need(m, n, ldc), compute.F32)
	if A == nil || B == nil || C == nil || m == 0 || n == 0 {
		return
	}
	cf := C.f32()
	if k == 0 || alpha == 0 {
		b.parallelFor(m, 64, func(_, lo, hi int) { scaleRows(cf[lo*ldc:], hi-lo, n, ldc, beta) })
		return
	}
	b.blas.setThreads(b.threads)
	if A.dt == compute.F32 && B.dt == compute.F32 {
		b.blas.sgemm(transA, transB, m, n, k, alpha, A.f32(), lda, B.f32(), ldb, beta, cf, ldc)
		return
	}
	// Rows of op(A) per block, columns of op(B) per block.
	mb, nb := m, n
	if A.dt == compute.BF16 {
		mb = max(1, min(m, b.blocks.GemmConvert/k))
	}
	if B.dt == compute.BF16 {
		nb = max(1, min(n, b.blocks.GemmConvert/k))
	}
	for i0 := 0; i0 < m; i0 += mb {
		i1 := min(m, i0+mb)
		ab, abld := b.gemmOperand(A, !transA, ar, i0, i1, k, lda, &b.convA)
		for j0 := 0; j0 < n; j0 += nb {
			j1 := min(n, j0+nb)
			bb, bbld := b.gemmOperand(B, transB, br, j0, j1, k, ldb, &b.convB)
			b.blas.sgemm(transA, transB, i1-i0, j1-j0, k, alpha, ab, abld, bb, bbld, beta, cf[i0*ldc+j0:], ldc)
		}
	}
}

// stored is the shape in memory of an operand whose product shape
// (after the transpose) is rows×cols.
func stored(trans bool, rows, cols int) (int, int) {
	if trans {
		return cols, rows
	}
	return rows, cols
}

// need is the length a rows×cols matrix with stride ld occupies.
func need(rows, cols, ld int) int {
	if rows == 0 || cols == 0 {
		return 0
	}
	return (rows-1)*ld + cols
}

// gemmOperand returns the part of an operand that feeds outputs [p0, p1):
// rows p0..p1 of op(A) (or columns of op(B)). For F32 it is a view of the
// stored matrix; for BF16 it is that part widened into *conv. byRows says
// the part is rows p0..p1 of the stored matrix (A untransposed, B
// transposed); otherwise it is columns p0..p1 of a stored matrix with
// rows rows. It returns the slice and its leading dimension.
func (b *Backend) gemmOperand(x *tensor, byRows bool, rows, p0, p1, k, ld int, conv *[]float32) ([]float32, int) {
	if x.dt == compute.F32 {
		if byRows {
			return x.f32()[p0*ld:], ld
		}
		return x.f32()[p0:], ld
	}
	w := p1 - p0
	if cap(*conv) < w*k {
		*conv = make([]float32, w*k)
	}
	dst, src := (*conv)[:w*k], x.b16()
	if byRows {
		// w stored rows of k elements.
		b.parallelFor(w, 16, func(_, lo, hi int) {
			for r := lo; r < hi; r++ {
				fromBF16Slice(dst[r*k:(r+1)*k], src[(p0+r)*ld:(p0+r)*ld+k])
			}
		})
		return dst, k
	}
	// rows stored rows, columns p0..p1 of each.
	b.parallelFor(rows, 16, func(_, lo, hi int) {
		for r := lo; r < hi; r++ {
			fromBF16Slice(dst[r*w:(r+1)*w], src[r*ld+p0:r*ld+p1])
		}
	})
	return dst, w
}
