package computetest

import (
	"math"
	"math/rand"

	"mascot.dev/mascot/trainer/compute"
)

// env allocates a case's tensors on one backend and frees them after.
type env struct {
	b     compute.Backend
	owned []compute.Tensor
}

func (e *env) alloc(dt compute.DType, n int) compute.Tensor {
	t := e.b.Alloc(dt, n)
	e.owned = append(e.owned, t)
	return t
}

func (e *env) freeAll() {
	for _, t := range e.owned {
		e.b.Free(t)
	}
	e.owned = nil
}

// f32 uploads v into a new F32 tensor.
func (e *env) f32(v []float32) compute.Tensor {
	t := e.alloc(compute.F32, len(v))
	e.b.Upload(t, v)
	return t
}

// bf16 uploads v (already bf16 values) into a new BF16 tensor.
func (e *env) bf16(v []float32) compute.Tensor {
	t := e.alloc(compute.BF16, len(v))
	e.b.Upload(t, v)
	return t
}

func (e *env) i32(v []int32) compute.Tensor {
	t := e.alloc(compute.I32, len(v))
	e.b.Upload(t, v)
	return t
}

// sentinel fills the elements around a view, which no op may touch.
const sentinel = -7777.25

// view uploads v at offset pad inside a buffer of len(v)+2·pad F32
// elements (the rest sentinel) and returns the view and its buffer.
func (e *env) view(v []float32, pad int) (view, base compute.Tensor) {
	buf := make([]float32, len(v)+2*pad)
	for i := range buf {
		buf[i] = sentinel
	}
	copy(buf[pad:], v)
	base = e.f32(buf)
	return e.b.Slice(base, pad, len(v)), base
}

// get downloads an F32 or BF16 tensor as float64.
func (e *env) get(t compute.Tensor) []float64 {
	v := make([]float32, t.Len())
	e.b.Download(v, t)
	return widen(v)
}

// viewOut downloads the buffer of a view made by view and returns two
// outputs: the view's elements (name, checked against the reference) and
// the padding around it (exactly the sentinel).
func (e *env) viewOut(name string, base compute.Tensor, pad int, c class) []output {
	all := e.get(base)
	n := len(all) - 2*pad
	outside := append(append([]float64{}, all[:pad]...), all[pad+n:]...)
	want := make([]float64, len(outside))
	for i := range want {
		want[i] = sentinel
	}
	return []output{
		{name: name, got: all[pad : pad+n], class: c},
		{name: name + " outside the view", got: outside, class: exact, want: want},
	}
}

func widen(v []float32) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x)
	}
	return out
}

// normal draws n values from N(0, sd²).
func normal(r *rand.Rand, n int, sd float64) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(r.NormFloat64() * sd)
	}
	return v
}

// roundBF16 rounds to the nearest bfloat16, ties to even, as Upload must;
// the suite's own copy, so a backend is checked against it.
func roundBF16(f float32) float32 {
	u := math.Float32bits(f)
	if u&0x7fffffff > 0x7f800000 {
		return f
	}
	u += 0x7fff + (u>>16)&1
	return math.Float32frombits(u &^ 0xffff)
}

// bf16Values rounds every value to bf16.
func bf16Values(v []float32) []float32 {
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = roundBF16(x)
	}
	return out
}

// nans is n NaNs (a C that beta 0 must ignore).
func nans(n int) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(math.NaN())
	}
	return v
}
