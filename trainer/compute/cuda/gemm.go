//go:build cuda

package cuda

import "mascot.dev/mascot/trainer/compute"

// convEntry is a cached conversion of a stored [rows, cols] matrix (row
// stride ld, from element off of buf at version ver) into a contiguous one
// of type to. A layer's q, k and v projections (and gate and up) read the
// same activations, so the second and third products reuse the first's
// conversion; the LM head's BF16 table widened for the F32 precision is
// reused while the weights are unchanged.
type convEntry struct {
	buf             *buffer
	ver             uint64
	off, rows, cols int
	ld              int
	to              compute.DType
	out             block
	used            uint64
}

func (b *Backend) forgetConv(buf *buffer) {
	for i := range b.conv {
		if b.conv[i].buf == buf {
			b.devRelease(b.conv[i].out.ptr, b.conv[i].out.class)
			b.conv[i] = convEntry{}
		}
	}
}

func (b *Backend) releaseConv() {
	for i := range b.conv {
		if b.conv[i].buf != nil {
			b.devRelease(b.conv[i].out.ptr, b.conv[i].out.class)
		}
		b.conv[i] = convEntry{}
	}
}

// converted returns x's stored [rows, cols] matrix (stride ld) as a
// contiguous matrix of type to (its stride is cols), converting it unless
// the cache holds it already.
func (b *Backend) converted(op string, x *tensor, rows, cols, ld int, to compute.DType) devPtr {
	b.convClock++
	for i := range b.conv {
		e := &b.conv[i]
		if e.buf == x.buf && e.ver == x.buf.version && e.off == x.off && e.rows == rows && e.cols == cols && e.ld == ld && e.to == to {
			e.used = b.convClock
			return e.out.ptr
		}
	}
	victim := &b.conv[0]
	if b.conv[1].used < victim.used {
		victim = &b.conv[1]
	}
	if victim.buf != nil {
		b.devRelease(victim.out.ptr, victim.out.class)
		*victim = convEntry{}
	}
	p, c, err := b.devAlloc(rows * cols * to.Size())
	if b.failErr(op, err) {
		return 0
	}
	name := "k_to_bf16"
	if to == compute.F32 {
		name = "k_to_f32"
	}
	b.launch1(op, name, rows*cols, p, x.ptr(), rows, cols, ld)
	*victim = convEntry{buf: x.buf, ver: x.buf.version, off: x.off, rows: rows, cols: cols, ld: ld, to: to,
		out: block{p, c}, used: b.convClock}
	return p
}

func cudaType(dt compute.DType) int {
	if dt == compute.BF16 {
		return dtR16BF
	}
	return dtR32F
}

// rowGemm is one row-major product C = alpha·op(A)·op(B) + beta·C in
// cuBLAS's column-major terms: a row-major matrix is the column-major
// transpose, so Cᵀ = op(B)ᵀ·op(A)ᵀ, which is cuBLAS's product with the
// operands swapped and m and n exchanged. For count > 0, a, bm and c are
// device arrays of count pointers (cublasGemmBatchedEx).
func (b *Backend) rowGemm(op string, transA, transB bool, m, n, k int, alpha float32, a devPtr, at compute.DType, lda int,
	bm devPtr, bt compute.DType, ldb int, beta float32, c devPtr, ldc int, count int) {
	if b.err != nil {
		return
	}
	b.failErr(op, b.st.api.gemm(b.blas, gemmCall{transA: transB, transB: transA, m: n, n: m, k: k, alpha: alpha, beta: beta,
		a: bm, at: cudaType(bt), lda: ldb, b: a, bt: cudaType(at), ldb: lda, c: c, ldc: ldc, count: count}))
}

// need is the length a rows×cols matrix with stride ld occupies.
func need(rows, cols, ld int) int {
	if rows == 0 || cols == 0 {
		return 0
	}
	return (rows-1)*ld + cols
}

// Gemm implements compute.Backend. F32×F32 runs in float32; BF16×BF16 on
// the tensor cores (the products of bfloat16 values are exact in float32,
// so only the float32 accumulation rounds). With one BF16 and one F32
// operand, the BF16 precision rounds the F32 one to bfloat16 for the
// tensor cores and the F32 precision widens the BF16 one.
func (b *Backend) Gemm(transA, transB bool, m, n, k int, alpha float32, a compute.Tensor, lda int, bt compute.Tensor, ldb int, beta float32, c compute.Tensor, ldc int) {
	const op = "Gemm"
	if b.err != nil {
		return
	}
	if m < 0 || n < 0 || k < 0 {
		b.fail(op, "negative size m=%d n=%d k=%d", m, n, k)
		return
	}
	ar, ac := m, k
	if transA {
		ar, ac = k, m
	}
	br, bc := k, n
	if transB {
		br, bc = n, k
	}
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
	wrote(C)
	if k == 0 || alpha == 0 {
		b.launch1(op, "k_scale_rows", m*n, C.ptr(), m, n, ldc, beta)
		return
	}
	ap, at, bp, btp := A.ptr(), A.dt, B.ptr(), B.dt
	if at != btp {
		// Convert the operand of the other type into a contiguous copy.
		to := compute.BF16
		if b.prec == F32 {
			to = compute.F32
		}
		if at != to {
			ap, at, lda = b.converted(op, A, ar, ac, lda, to), to, ac
		}
		if btp != to {
			bp, btp, ldb = b.converted(op, B, br, bc, ldb, to), to, bc
		}
	}
	b.rowGemm(op, transA, transB, m, n, k, alpha, ap, at, lda, bp, btp, ldb, beta, C.ptr(), ldc, 0)
}
