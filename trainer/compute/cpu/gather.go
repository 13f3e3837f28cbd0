package cpu

import "mascot.dev/mascot/trainer/compute"

// Gather implements compute.Backend. An index outside src's rows records
// an error (the rows before it are written).
func (b *Backend) Gather(out, src, idx compute.Tensor, dim int) {
	const op = "Gather"
	I := b.arg(op, "idx", idx, 0, compute.I32)
	if I == nil {
		return
	}
	if dim <= 0 {
		b.fail(op, "dim = %d", dim)
		return
	}
	n := I.n
	O := b.arg(op, "out", out, n*dim, compute.F32)
	S := b.arg(op, "src", src, 0, compute.F32, compute.BF16)
	if O == nil || S == nil {
		return
	}
	rows, ix, o := S.n/dim, I.i32(), O.f32()
	if bad := badIndex(ix, rows); bad >= 0 {
		b.fail(op, "idx[%d] = %d is outside the %d rows of src", bad, ix[bad], rows)
		return
	}
	b.parallelFor(n, 64, func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			r := int(ix[i])
			if S.dt == compute.F32 {
				copy(o[i*dim:(i+1)*dim], S.f32()[r*dim:(r+1)*dim])
			} else {
				fromBF16Slice(o[i*dim:(i+1)*dim], S.b16()[r*dim:(r+1)*dim])
			}
		}
	})
}

// ScatterAdd implements compute.Backend. Threads split the columns, and
// each walks the indices in order, so repeated indices add up in index
// order whatever the thread count.
func (b *Backend) ScatterAdd(dst, src, idx compute.Tensor, dim int) {
	const op = "ScatterAdd"
	I := b.arg(op, "idx", idx, 0, compute.I32)
	if I == nil {
		return
	}
	if dim <= 0 {
		b.fail(op, "dim = %d", dim)
		return
	}
	n := I.n
	S := b.arg(op, "src", src, n*dim, compute.F32)
	D := b.arg(op, "dst", dst, 0, compute.F32)
	if S == nil || D == nil {
		return
	}
	rows, ix, s, d := D.n/dim, I.i32(), S.f32(), D.f32()
	if bad := badIndex(ix, rows); bad >= 0 {
		b.fail(op, "idx[%d] = %d is outside the %d rows of dst", bad, ix[bad], rows)
		return
	}
	b.parallelFor(dim, 16, func(_, lo, hi int) {
		for i, r := range ix {
			dr, sr := d[int(r)*dim+lo:int(r)*dim+hi], s[i*dim+lo:i*dim+hi]
			for j := range dr {
				dr[j] += sr[j]
			}
		}
	})
}

// badIndex is the position of the first index outside [0, rows), or -1.
func badIndex(ix []int32, rows int) int {
	for i, r := range ix {
		if r < 0 || int(r) >= rows {
			return i
		}
	}
	return -1
}
