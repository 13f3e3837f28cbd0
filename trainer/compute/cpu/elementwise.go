package cpu

import "mascot.dev/mascot/trainer/compute"

// elemGrain is the fewest elements an element-wise op gives one thread.
const elemGrain = 1 << 14

// pair checks two F32 tensors of equal length.
func (b *Backend) pair(op string, dst, src compute.Tensor) (d, s []float32) {
	D := b.arg(op, "dst", dst, 0, compute.F32)
	if D == nil {
		return nil, nil
	}
	S := b.exact(op, "src", src, D.n, compute.F32)
	if S == nil {
		return nil, nil
	}
	return D.f32(), S.f32()
}

// Add implements compute.Backend.
func (b *Backend) Add(dst, src compute.Tensor) {
	d, s := b.pair("Add", dst, src)
	if d == nil {
		return
	}
	b.parallelFor(len(d), elemGrain, func(_, lo, hi int) {
		dd, ss := d[lo:hi], s[lo:hi]
		for i := range dd {
			dd[i] += ss[i]
		}
	})
}

// Axpy implements compute.Backend.
func (b *Backend) Axpy(dst compute.Tensor, alpha float32, src compute.Tensor) {
	d, s := b.pair("Axpy", dst, src)
	if d == nil {
		return
	}
	b.parallelFor(len(d), elemGrain, func(_, lo, hi int) {
		dd, ss := d[lo:hi], s[lo:hi]
		for i := range dd {
			dd[i] += alpha * ss[i]
		}
	})
}

// Scale implements compute.Backend.
func (b *Backend) Scale(t compute.Tensor, alpha float32) {
	x := b.arg("Scale", "t", t, 0, compute.F32)
	if x == nil {
		return
	}
	d := x.f32()
	b.parallelFor(len(d), elemGrain, func(_, lo, hi int) {
		dd := d[lo:hi]
		for i := range dd {
			dd[i] *= alpha
		}
	})
}

// sumChunk is the fixed chunk SumSquares sums on its own before adding
// the chunks' sums in order: the result is the same for every thread
// count.
const sumChunk = 1 << 13

// SumSquares implements compute.Backend.
func (b *Backend) SumSquares(t compute.Tensor) float64 {
	x := b.arg("SumSquares", "t", t, 0, compute.F32)
	if x == nil {
		return 0
	}
	d := x.f32()
	chunks := (len(d) + sumChunk - 1) / sumChunk
	part := make([]float64, chunks)
	b.parallelFor(chunks, 4, func(_, lo, hi int) {
		for c := lo; c < hi; c++ {
			part[c] = sumSquares(d[c*sumChunk : min(len(d), (c+1)*sumChunk)])
		}
	})
	var s float64
	for _, p := range part {
		s += p
	}
	return s
}

// triple checks three F32 tensors of the first one's length.
func (b *Backend) triple(op string, names [3]string, ts [3]compute.Tensor) (out [3][]float32, ok bool) {
	x := b.arg(op, names[0], ts[0], 0, compute.F32)
	if x == nil {
		return out, false
	}
	out[0] = x.f32()
	for i := 1; i < 3; i++ {
		y := b.exact(op, names[i], ts[i], x.n, compute.F32)
		if y == nil {
			return out, false
		}
		out[i] = y.f32()
	}
	return out, true
}

// SwiGLU implements compute.Backend.
func (b *Backend) SwiGLU(out, gate, up compute.Tensor) {
	t, ok := b.triple("SwiGLU", [3]string{"out", "gate", "up"}, [3]compute.Tensor{out, gate, up})
	if !ok {
		return
	}
	o, g, u := t[0], t[1], t[2]
	b.parallelFor(len(o), elemGrain, func(_, lo, hi int) { swiglu(o[lo:hi], g[lo:hi], u[lo:hi]) })
}

// SwiGLUBackward implements compute.Backend.
func (b *Backend) SwiGLUBackward(dGate, dUp, dOut, gate, up compute.Tensor) {
	t, ok := b.triple("SwiGLUBackward", [3]string{"dGate", "dUp", "dOut"}, [3]compute.Tensor{dGate, dUp, dOut})
	if !ok {
		return
	}
	t2, ok := b.triple("SwiGLUBackward", [3]string{"dGate", "gate", "up"}, [3]compute.Tensor{dGate, gate, up})
	if !ok {
		return
	}
	dg, du, do, g, u := t[0], t[1], t[2], t2[1], t2[2]
	b.parallelFor(len(dg), elemGrain, func(_, lo, hi int) {
		swigluBwd(dg[lo:hi], du[lo:hi], do[lo:hi], g[lo:hi], u[lo:hi])
	})
}

// Dropout implements compute.Backend.
func (b *Backend) Dropout(dst, src compute.Tensor, p float32, seed uint64) {
	d, s := b.pair("Dropout", dst, src)
	if d == nil {
		return
	}
	if !(p >= 0 && p < 1) {
		b.fail("Dropout", "p = %g is outside [0, 1)", p)
		return
	}
	scale := 1 / (1 - p)
	b.parallelFor(len(d), elemGrain, func(_, lo, hi int) { dropout(d[lo:hi], s[lo:hi], lo, seed, p, scale) })
}
