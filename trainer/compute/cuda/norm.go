//go:build cuda

package cuda

import "mascot.dev/mascot/trainer/compute"

// normChunk is how many rows one block of the weight gradient sums before
// the chunks are added in order.
const normChunk = 64

// RMSNorm implements compute.Backend: one block per row, the mean square
// summed in float32 by a fixed tree, rstd = 1/sqrt(mean + eps).
func (b *Backend) RMSNorm(out, rstd, x, w compute.Tensor, rows, dim int, eps float32) {
	const op = "RMSNorm"
	if b.err != nil {
		return
	}
	if rows < 0 || dim <= 0 {
		b.fail(op, "rows = %d, dim = %d", rows, dim)
		return
	}
	O := b.arg(op, "out", out, rows*dim, compute.F32)
	R := b.arg(op, "rstd", rstd, rows, compute.F32)
	X := b.arg(op, "x", x, rows*dim, compute.F32)
	W := b.arg(op, "w", w, dim, compute.F32)
	if O == nil || R == nil || X == nil || W == nil || rows == 0 {
		return
	}
	wrote(O, R)
	b.launchRows(op, "k_rmsnorm", rows, O.ptr(), R.ptr(), X.ptr(), W.ptr(), rows, dim, eps)
}

// RMSNormBackward implements compute.Backend. The weight gradient runs
// first (dx may share dy's storage): chunks of normChunk rows summed per
// column, then the chunks added in order.
func (b *Backend) RMSNormBackward(dx, dw, dy, x, w, rstd compute.Tensor, rows, dim int, accumulate bool) {
	const op = "RMSNormBackward"
	if b.err != nil {
		return
	}
	if rows < 0 || dim <= 0 {
		b.fail(op, "rows = %d, dim = %d", rows, dim)
		return
	}
	DX := b.arg(op, "dx", dx, rows*dim, compute.F32)
	DY := b.arg(op, "dy", dy, rows*dim, compute.F32)
	X := b.arg(op, "x", x, rows*dim, compute.F32)
	W := b.arg(op, "w", w, dim, compute.F32)
	R := b.arg(op, "rstd", rstd, rows, compute.F32)
	var DW *tensor
	if dw != nil {
		DW = b.arg(op, "dw", dw, dim, compute.F32)
	}
	if DX == nil || DY == nil || X == nil || W == nil || R == nil || (dw != nil && DW == nil) || rows == 0 {
		return
	}
	defer b.dropTemps()
	if DW != nil {
		chunk := max(normChunk, (rows+maxGridY-1)/maxGridY)
		chunks := (rows + chunk - 1) / chunk
		part := b.tmp(op, 4*chunks*dim)
		cols := (dim + threads - 1) / threads
		b.launch(op, "k_rmsnorm_bwd_dw", [2]int{cols, chunks}, part, DY.ptr(), X.ptr(), R.ptr(), rows, dim, chunk)
		b.launch(op, "k_colsum_add", [2]int{cols, 1}, DW.ptr(), part, chunks, dim)
		wrote(DW)
	}
	acc := 0
	if accumulate {
		acc = 1
	}
	wrote(DX)
	b.launchRows(op, "k_rmsnorm_bwd_dx", rows, DX.ptr(), DY.ptr(), X.ptr(), W.ptr(), R.ptr(), rows, dim, acc)
}
