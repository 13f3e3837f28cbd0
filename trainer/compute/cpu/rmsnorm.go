package cpu

import (
	"math"

	"mascot.dev/mascot/trainer/compute"
)

// RMSNorm implements compute.Backend: the mean square of a row
// accumulates in float64, rstd is rounded to float32, and out =
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
		for i := lo; i < hi; i++ {
			xr, or := xs[i*dim:(i+1)*dim], o[i*dim:(i+1)*dim]
			var ss float64
			for _, v := range xr {
				ss += float64(v) * float64(v)
			}
			rs := float32(1 / math.Sqrt(ss/float64(dim)+float64(eps)))
			r[i] = rs
			for j, v := range xr {
				or[j] = (v * rs) * ws[j]
			}
		}
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
			for i := 0; i < rows; i++ {
				rs := float64(r[i])
				xr, gr := xs[i*dim+lo:i*dim+hi], dys[i*dim+lo:i*dim+hi]
				for j := range acc {
					acc[j] += float64(gr[j]) * float64(xr[j]) * rs
				}
			}
			for j, a := range acc {
				dws[lo+j] += float32(a)
			}
		})
	}
	b.parallelFor(rows, 8, func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			xr, gr, dr := xs[i*dim:(i+1)*dim], dys[i*dim:(i+1)*dim], dxs[i*dim:(i+1)*dim]
			var dot float64
			for j, v := range xr {
				dot += float64(gr[j]) * float64(ws[j]) * float64(v)
			}
			rs := r[i]
			c := float32(dot/float64(dim)) * rs * rs * rs
			for j, v := range xr {
				g := rs*gr[j]*ws[j] - c*v
				if accumulate {
					dr[j] += g
				} else {
					dr[j] = g
				}
			}
		}
	})
}
