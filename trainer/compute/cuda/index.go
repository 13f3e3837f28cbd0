//go:build cuda

package cuda

import (
	"unsafe"

	"mascot.dev/mascot/trainer/compute"
)

// badIndex is the position of the first index outside [0, rows), or -1.
func badIndex(ix []int32, rows int) int {
	for i, r := range ix {
		if r < 0 || int(r) >= rows {
			return i
		}
	}
	return -1
}

// Gather implements compute.Backend. Indices are checked on the host
// mirror of idx before anything runs.
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
	rows, ix := S.n/dim, I.ints()
	if bad := badIndex(ix, rows); bad >= 0 {
		b.fail(op, "idx[%d] = %d is outside the %d rows of src", bad, ix[bad], rows)
		return
	}
	if n == 0 {
		return
	}
	wrote(O)
	name := "k_gather_f32"
	if S.dt == compute.BF16 {
		name = "k_gather_bf16"
	}
	b.launch(op, name, [2]int{(dim + threads - 1) / threads, min(n, maxGridY)}, O.ptr(), S.ptr(), I.ptr(), n, dim)
}

// ScatterAdd implements compute.Backend. The host groups the indices by
// destination row (scatterPlan); one thread per column of a row then adds
// the row's sources in index order, so repeated indices add up exactly as
// dst[idx[i]] += src[i] for i = 0, 1, … does, with no atomics.
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
	ix := I.ints()
	if bad := badIndex(ix, D.n/dim); bad >= 0 {
		b.fail(op, "idx[%d] = %d is outside the %d rows of dst", bad, ix[bad], D.n/dim)
		return
	}
	if n == 0 {
		return
	}
	wrote(D)
	rows, starts, srcs := scatterPlan(ix)
	plan := append(append(append([]int32{}, rows...), starts...), srcs...)
	p := b.tmp(op, 4*len(plan))
	if b.err != nil {
		return
	}
	defer b.dropTemps()
	if b.failErr(op, b.st.api.htod(p, unsafe.Pointer(&plan[0]), 4*len(plan), b.stream)) {
		return
	}
	nu := len(rows)
	pr, ps := p+devPtr(4*nu), p+devPtr(4*(2*nu+1))
	b.launch(op, "k_scatter_add", [2]int{(dim + threads - 1) / threads, min(nu, maxGridY)}, D.ptr(), S.ptr(), p, pr, ps, nu, dim)
}

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
	ps := P.ints()[:rows]
	if bad := badIndex(ps, maxPos); bad >= 0 {
		b.fail(op, "pos[%d] = %d is outside the tables' %d positions", bad, ps[bad], maxPos)
		return
	}
	if rows == 0 {
		return
	}
	wrote(X)
	inv := 0
	if inverse {
		inv = 1
	}
	b.launch1(op, "k_rope", rows*heads*half, X.ptr(), P.ptr(), CO.ptr(), SI.ptr(), rows, heads, dim, inv)
}
