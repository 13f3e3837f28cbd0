//go:build cuda

package cuda

import (
	"unsafe"

	"mascot.dev/mascot/trainer/compute"
)

// sumBlocks is the fixed grid of SumSquares' first stage: the partial
// sums, and so the result, do not depend on anything but the length.
const sumBlocks = 1024

// pair checks two F32 tensors of equal length.
func (b *Backend) pair(op string, dst, src compute.Tensor) (d, s *tensor) {
	D := b.arg(op, "dst", dst, 0, compute.F32)
	if D == nil {
		return nil, nil
	}
	S := b.exact(op, "src", src, D.n, compute.F32)
	if S == nil {
		return nil, nil
	}
	wrote(D)
	return D, S
}

// Add implements compute.Backend.
func (b *Backend) Add(dst, src compute.Tensor) {
	if d, s := b.pair("Add", dst, src); d != nil && d.n > 0 {
		b.launch1("Add", "k_add", d.n, d.ptr(), s.ptr(), d.n)
	}
}

// Axpy implements compute.Backend.
func (b *Backend) Axpy(dst compute.Tensor, alpha float32, src compute.Tensor) {
	if d, s := b.pair("Axpy", dst, src); d != nil && d.n > 0 {
		b.launch1("Axpy", "k_axpy", d.n, d.ptr(), alpha, s.ptr(), d.n)
	}
}

// Scale implements compute.Backend.
func (b *Backend) Scale(t compute.Tensor, alpha float32) {
	x := b.arg("Scale", "t", t, 0, compute.F32)
	if x == nil || x.n == 0 {
		return
	}
	wrote(x)
	b.launch1("Scale", "k_scale", x.n, x.ptr(), alpha, x.n)
}

// SumSquares implements compute.Backend: float64 partial sums over a
// fixed grid, added in order by one thread, then read back.
func (b *Backend) SumSquares(t compute.Tensor) float64 {
	const op = "SumSquares"
	x := b.arg(op, "t", t, 0, compute.F32)
	if x == nil || x.n == 0 {
		return 0
	}
	g := min(sumBlocks, (x.n+threads-1)/threads)
	out := b.sumBuf + devPtr(sumBlocks*8)
	b.launch(op, "k_sumsq_part", [2]int{g, 1}, b.sumBuf, x.ptr(), x.n)
	b.launch(op, "k_sum_final", [2]int{1, 1}, out, b.sumBuf, g)
	var s float64
	if b.err != nil || b.failErr(op, b.st.api.dtoh(unsafe.Pointer(&s), out, 8, b.stream)) ||
		b.failErr(op, b.st.api.streamSync(b.stream)) {
		return 0
	}
	return s
}

// triple checks three F32 tensors of the first one's length.
func (b *Backend) triple(op string, names [3]string, ts [3]compute.Tensor) (out [3]*tensor, ok bool) {
	x := b.arg(op, names[0], ts[0], 0, compute.F32)
	if x == nil {
		return out, false
	}
	out[0] = x
	for i := 1; i < 3; i++ {
		y := b.exact(op, names[i], ts[i], x.n, compute.F32)
		if y == nil {
			return out, false
		}
		out[i] = y
	}
	return out, true
}

// SwiGLU implements compute.Backend.
func (b *Backend) SwiGLU(out, gate, up compute.Tensor) {
	t, ok := b.triple("SwiGLU", [3]string{"out", "gate", "up"}, [3]compute.Tensor{out, gate, up})
	if !ok || t[0].n == 0 {
		return
	}
	wrote(t[0])
	b.launch1("SwiGLU", "k_swiglu", t[0].n, t[0].ptr(), t[1].ptr(), t[2].ptr(), t[0].n)
}

// SwiGLUBackward implements compute.Backend.
func (b *Backend) SwiGLUBackward(dGate, dUp, dOut, gate, up compute.Tensor) {
	const op = "SwiGLUBackward"
	t, ok := b.triple(op, [3]string{"dGate", "dUp", "dOut"}, [3]compute.Tensor{dGate, dUp, dOut})
	if !ok {
		return
	}
	t2, ok := b.triple(op, [3]string{"dGate", "gate", "up"}, [3]compute.Tensor{dGate, gate, up})
	if !ok || t[0].n == 0 {
		return
	}
	wrote(t[0], t[1])
	b.launch1(op, "k_swiglu_bwd", t[0].n, t[0].ptr(), t[1].ptr(), t[2].ptr(), t2[1].ptr(), t2[2].ptr(), t[0].n)
}

// Dropout implements compute.Backend: the kernel computes compute.Keep's
// SplitMix64 draw for each element, so the mask is the CPU backend's bit
// for bit, and scales by the same float32 1/(1−p).
func (b *Backend) Dropout(dst, src compute.Tensor, p float32, seed uint64) {
	d, s := b.pair("Dropout", dst, src)
	if d == nil {
		return
	}
	if !(p >= 0 && p < 1) {
		b.fail("Dropout", "p = %g is outside [0, 1)", p)
		return
	}
	if d.n == 0 {
		return
	}
	scale := 1 / (1 - p)
	b.launch1("Dropout", "k_dropout", d.n, d.ptr(), s.ptr(), p, scale, seed, d.n)
}

// AdamW implements compute.Backend with the CPU backend's arithmetic:
// scalars formed in float64 and rounded once, the element-wise update in
// float32.
func (b *Backend) AdamW(param, grad, m, v compute.Tensor, a compute.Adam) {
	const op = "AdamW"
	P := b.arg(op, "param", param, 0, compute.F32)
	if P == nil {
		return
	}
	G := b.exact(op, "grad", grad, P.n, compute.F32)
	M := b.exact(op, "m", m, P.n, compute.F32)
	V := b.exact(op, "v", v, P.n, compute.F32)
	if G == nil || M == nil || V == nil {
		return
	}
	if a.Step < 1 {
		b.fail(op, "step %d (1-based)", a.Step)
		return
	}
	if P.n == 0 {
		return
	}
	s := adamScalars(a)
	wrote(P, M, V)
	b.launch1(op, "k_adamw", P.n, P.ptr(), G.ptr(), M.ptr(), V.ptr(), P.n,
		s.b1, s.b2, s.c1, s.c2, s.eps, s.decay, s.step, s.bc2, s.gscale)
}
