package cpu

import (
	"math"

	"mascot.dev/mascot/trainer/compute"
)

// storage is one allocation; views share it.
type storage struct {
	owner *Backend
	f     []float32 // F32
	h     []uint16  // BF16 bits
	i     []int32   // I32
	freed bool
}

// tensor is an allocation or a view [off, off+n) of one.
type tensor struct {
	dt     compute.DType
	st     *storage
	off, n int
	view   bool
}

func (t *tensor) Len() int             { return t.n }
func (t *tensor) DType() compute.DType { return t.dt }

func (t *tensor) f32() []float32 { return t.st.f[t.off : t.off+t.n] }
func (t *tensor) b16() []uint16  { return t.st.h[t.off : t.off+t.n] }
func (t *tensor) i32() []int32   { return t.st.i[t.off : t.off+t.n] }

// Alloc implements compute.Backend.
func (b *Backend) Alloc(dt compute.DType, n int) compute.Tensor {
	st := &storage{owner: b}
	if n < 0 {
		b.fail("Alloc", "negative length %d", n)
		n = 0
	}
	switch dt {
	case compute.F32:
		st.f = make([]float32, n)
	case compute.BF16:
		st.h = make([]uint16, n)
	case compute.I32:
		st.i = make([]int32, n)
	default:
		b.fail("Alloc", "unknown dtype %v", dt)
		dt, st.f, n = compute.F32, nil, 0
	}
	b.inUse += int64(n) * int64(dt.Size())
	return &tensor{dt: dt, st: st, n: n}
}

// Free implements compute.Backend.
func (b *Backend) Free(t compute.Tensor) {
	x := b.own("Free", "t", t)
	if x == nil {
		return
	}
	if x.view {
		b.fail("Free", "t is a view (Slice); free the tensor Alloc returned")
		return
	}
	x.st.freed = true
	b.inUse -= int64(x.n) * int64(x.dt.Size())
	x.st.f, x.st.h, x.st.i = nil, nil, nil
}

// Slice implements compute.Backend. A view of a bad range records the
// error and is empty.
func (b *Backend) Slice(t compute.Tensor, off, n int) compute.Tensor {
	x := b.own("Slice", "t", t)
	if x == nil {
		return &tensor{dt: compute.F32, st: &storage{owner: b}}
	}
	if off < 0 || n < 0 || off+n > x.n {
		b.fail("Slice", "[%d, %d+%d) is outside a tensor of %d elements", off, off, n, x.n)
		return &tensor{dt: x.dt, st: &storage{owner: b}, view: true}
	}
	return &tensor{dt: x.dt, st: x.st, off: x.off + off, n: n, view: true}
}

// own checks that t is a live tensor of this backend. It returns nil when
// it is not (or an earlier op failed), having recorded the error.
func (b *Backend) own(op, name string, t compute.Tensor) *tensor {
	if b.err != nil {
		return nil
	}
	x, ok := t.(*tensor)
	switch {
	case t == nil || (ok && x == nil):
		b.fail(op, "%s is nil", name)
	case !ok:
		b.fail(op, "%s is a %T, not a tensor of this backend", name, t)
	case x.st.owner != b:
		b.fail(op, "%s belongs to another backend", name)
	case x.st.freed:
		b.fail(op, "%s was freed", name)
	default:
		return x
	}
	return nil
}

// arg checks t's dtype (one of dts) and that it has at least n elements.
func (b *Backend) arg(op, name string, t compute.Tensor, n int, dts ...compute.DType) *tensor {
	x := b.own(op, name, t)
	if x == nil {
		return nil
	}
	okType := false
	for _, d := range dts {
		okType = okType || x.dt == d
	}
	if !okType {
		b.fail(op, "%s is %v, want %v", name, x.dt, dts)
		return nil
	}
	if x.n < n {
		b.fail(op, "%s has %d elements, needs %d", name, x.n, n)
		return nil
	}
	return x
}

// exact is arg for a tensor that must have exactly n elements.
func (b *Backend) exact(op, name string, t compute.Tensor, n int, dts ...compute.DType) *tensor {
	x := b.arg(op, name, t, n, dts...)
	if x != nil && x.n != n {
		b.fail(op, "%s has %d elements, want exactly %d", name, x.n, n)
		return nil
	}
	return x
}

// Upload implements compute.Backend.
func (b *Backend) Upload(dst compute.Tensor, src any) {
	x := b.own("Upload", "dst", dst)
	if x == nil {
		return
	}
	var n int
	switch s := src.(type) {
	case []float32:
		n = len(s)
		if n == x.n {
			switch x.dt {
			case compute.F32:
				copy(x.f32(), s)
			case compute.BF16:
				b.parallelFor(n, 1<<14, func(_, lo, hi int) { toBF16Slice(x.b16()[lo:hi], s[lo:hi]) })
			default:
				b.fail("Upload", "[]float32 into a %v tensor", x.dt)
			}
			return
		}
	case []uint16:
		n = len(s)
		if n == x.n {
			if x.dt != compute.BF16 {
				b.fail("Upload", "[]uint16 (bfloat16 bits) into a %v tensor", x.dt)
				return
			}
			copy(x.b16(), s)
			return
		}
	case []int32:
		n = len(s)
		if n == x.n {
			if x.dt != compute.I32 {
				b.fail("Upload", "[]int32 into a %v tensor", x.dt)
				return
			}
			copy(x.i32(), s)
			return
		}
	default:
		b.fail("Upload", "source %T (want []float32, []uint16 or []int32)", src)
		return
	}
	b.fail("Upload", "source has %d elements, dst %d", n, x.n)
}

// Download implements compute.Backend.
func (b *Backend) Download(dst any, src compute.Tensor) {
	x := b.own("Download", "src", src)
	if x == nil {
		return
	}
	switch d := dst.(type) {
	case []float32:
		if len(d) != x.n {
			b.fail("Download", "dst has %d elements, src %d", len(d), x.n)
			return
		}
		switch x.dt {
		case compute.F32:
			copy(d, x.f32())
		case compute.BF16:
			fromBF16Slice(d, x.b16())
		default:
			b.fail("Download", "%v tensor into []float32", x.dt)
		}
	case []int32:
		if len(d) != x.n {
			b.fail("Download", "dst has %d elements, src %d", len(d), x.n)
			return
		}
		if x.dt != compute.I32 {
			b.fail("Download", "%v tensor into []int32", x.dt)
			return
		}
		copy(d, x.i32())
	default:
		b.fail("Download", "destination %T (want []float32 or []int32)", dst)
	}
}

// Zero implements compute.Backend.
func (b *Backend) Zero(t compute.Tensor) {
	x := b.own("Zero", "t", t)
	if x == nil {
		return
	}
	switch x.dt {
	case compute.F32:
		clear(x.f32())
	case compute.BF16:
		clear(x.b16())
	case compute.I32:
		clear(x.i32())
	}
}

// Copy implements compute.Backend.
func (b *Backend) Copy(dst, src compute.Tensor) {
	d, s := b.own("Copy", "dst", dst), b.own("Copy", "src", src)
	if d == nil || s == nil {
		return
	}
	if d.dt != s.dt || d.n != s.n {
		b.fail("Copy", "dst is %v[%d], src %v[%d]", d.dt, d.n, s.dt, s.n)
		return
	}
	switch d.dt {
	case compute.F32:
		copy(d.f32(), s.f32())
	case compute.BF16:
		copy(d.b16(), s.b16())
	case compute.I32:
		copy(d.i32(), s.i32())
	}
}

// toBF16 rounds to the nearest bfloat16, ties to even; NaNs stay NaN.
func toBF16(f float32) uint16 {
	u := math.Float32bits(f)
	if u&0x7fffffff > 0x7f800000 {
		return uint16(u>>16) | 0x40
	}
	u += 0x7fff + (u>>16)&1
	return uint16(u >> 16)
}

func toBF16Slice(dst []uint16, src []float32) {
	for i, f := range src {
		dst[i] = toBF16(f)
	}
}
