package cpu

import "mascot.dev/mascot/trainer/compute"

// RoPE implements compute.Backend. A position outside the tables records
// an error before anything is rotated.
func (b *Backend) RoPE(x, pos, cos, sin compute.Tensor, rows, heads, dim int, inverse bool) {
	const op = "RoPE"
	if b.err != nil {
		return
	}
	if rows < 0 || heads <= 0 || dim <= 0 || dim%2 != 0 {
		b.fail(op, "rows = %d, heads = %d, dim = %d (even, positive)", rows, heads, dim)
		return
	}
	half := dim / 2
	X := b.arg(op, "x", x, rows*heads*dim, compute.F32)
	P := b.arg(op, "pos", pos, rows, compute.I32)
	CO := b.arg(op, "cos", cos, half, compute.F32)
	SI := b.arg(op, "sin", sin, half, compute.F32)
	if X == nil || P == nil || CO == nil || SI == nil {
		return
	}
	maxPos := min(CO.n, SI.n) / half
	ps := P.i32()[:rows]
	if bad := badIndex(ps, maxPos); bad >= 0 {
		b.fail(op, "pos[%d] = %d is outside the tables' %d positions", bad, ps[bad], maxPos)
		return
	}
	xs, cs, ss := X.f32(), CO.f32(), SI.f32()
	sign := float32(1)
	if inverse {
		sign = -1
	}
	b.parallelFor(rows, 8, func(_, lo, hi int) {
		ropeRows(xs[lo*heads*dim:hi*heads*dim], ps[lo:hi], cs, ss, hi-lo, heads, dim, sign)
	})
}
