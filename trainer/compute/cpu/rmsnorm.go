package cpu

import "mascot.dev/mascot/trainer/compute"

// RMSNorm implements compute.Backend (kernels.c): the mean square of a
// row accumulates in float64, rstd is rounded to float32, and out =
// (x·rstd)·w in float32 as Qwen3RMSNorm computes it.
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
	if O == nil || R == nil || X == nil || W == nil {
		return
	}
	o, r, xs, ws := O.f32(), R.f32(), X.f32(), W.f32()[:dim]
	b.parallelFor(rows, 8, func(_, lo, hi int) {
		rmsNormRows(o[lo*dim:hi*dim], r[lo:hi], xs[lo*dim:hi*dim], ws, hi-lo, dim, eps)
	})
}

// RMSNormBackward implements compute.Backend. dw is summed by threads
// that split the columns, each adding the rows in order, so it is the
// same for every thread count.
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
	if DX == nil || DY == nil || X == nil || W == nil || R == nil || (dw != nil && DW == nil) {
		return
	}
	dxs, dys, xs, ws, r := DX.f32(), DY.f32(), X.f32(), W.f32()[:dim], R.f32()
	if DW != nil {
		// Before dx: dx may share dy's storage.
		dws := DW.f32()[:dim]
		b.parallelFor(dim, 64, func(_, lo, hi int) {
			acc := make([]float64, hi-lo)
			if rows > 0 {
				rmsNormDW(acc, dys, xs, r, rows, dim, lo, hi)
			}
			for j, a := range acc {
				dws[lo+j] += float32(a)
			}
		})
	}
	b.parallelFor(rows, 8, func(_, lo, hi int) {
		rmsNormBackwardRows(dxs[lo*dim:hi*dim], dys[lo*dim:hi*dim], xs[lo*dim:hi*dim], ws, r[lo:hi], hi-lo, dim, accumulate)
	})
}
