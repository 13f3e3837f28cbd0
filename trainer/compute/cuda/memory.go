//go:build cuda

package cuda

import (
	"errors"
	"unsafe"

	"mascot.dev/mascot/trainer/compute"
	"mascot.dev/mascot/trainer/safetensors"
)

// buffer is one allocation on the device; views share it.
type buffer struct {
	owner *Backend
	ptr   devPtr
	class int // the pool size class it came from
	dt    compute.DType
	n     int
	freed bool
	// version counts the ops that wrote into the buffer, so a cached
	// conversion of it is known to be stale.
	version uint64
	// host mirrors an I32 buffer. Only Upload, Zero and Copy write I32
	// tensors, so the mirror is exact, and indices (token ids, positions,
	// lengths, targets) are checked on the host without a device round
	// trip, as the CPU backend checks them.
	host []int32
}

// tensor is an allocation or a view [off, off+n) of one.
type tensor struct {
	buf    *buffer
	off, n int
	dt     compute.DType
	view   bool
}

func (t *tensor) Len() int             { return t.n }
func (t *tensor) DType() compute.DType { return t.dt }

// ptr is the device address of the tensor's first element.
func (t *tensor) ptr() devPtr { return t.buf.ptr + devPtr(t.off*t.dt.Size()) }

// bytes is the tensor's size in bytes.
func (t *tensor) bytes() int { return t.n * t.dt.Size() }

// ints is the host mirror of an I32 tensor.
func (t *tensor) ints() []int32 { return t.buf.host[t.off : t.off+t.n] }

// block is a piece of device memory from the pool.
type block struct {
	ptr   devPtr
	class int
}

// sizeClass rounds a request up to the pool's block sizes: powers of two
// from 512 bytes to 1 MiB, then multiples of 2 MiB.
func sizeClass(bytes int) int {
	if bytes <= 0 {
		return 0
	}
	if bytes <= 1<<20 {
		c := 512
		for c < bytes {
			c <<= 1
		}
		return c
	}
	const step = 2 << 20
	return (bytes + step - 1) / step * step
}

// devAlloc takes a block of at least bytes from the pool or the driver.
// When the device is out of memory it returns the pool's blocks to the
// driver and tries once more.
func (b *Backend) devAlloc(bytes int) (devPtr, int, error) {
	c := sizeClass(bytes)
	if c == 0 {
		return 0, 0, nil
	}
	if l := b.pool[c]; len(l) > 0 {
		p := l[len(l)-1]
		b.pool[c] = l[:len(l)-1]
		b.pooled -= int64(c)
		return p, c, nil
	}
	p, err := b.st.api.memAlloc(c)
	var de *driverError
	if errors.As(err, &de) && de.code == cuErrorOutOfMemory && b.pooled > 0 {
		if err = b.trim(); err == nil {
			p, err = b.st.api.memAlloc(c)
		}
	}
	return p, c, err
}

// devRelease returns a block to the pool. Ops after this one in the stream
// may reuse it; the ones before it have been queued already, so the
// stream's order keeps the reuse safe.
func (b *Backend) devRelease(p devPtr, class int) {
	if class == 0 {
		return
	}
	b.pool[class] = append(b.pool[class], p)
	b.pooled += int64(class)
}

// trim waits for the stream and frees every pooled block.
func (b *Backend) trim() error {
	err := b.st.api.streamSync(b.stream)
	for c, l := range b.pool {
		for _, p := range l {
			err = errors.Join(err, b.st.api.memFree(p))
		}
		delete(b.pool, c)
	}
	b.pooled = 0
	return err
}

// tmp is scratch for the op in progress, released by dropTemps.
func (b *Backend) tmp(op string, bytes int) devPtr {
	p, c, err := b.devAlloc(bytes)
	if b.failErr(op, err) {
		return 0
	}
	b.temps = append(b.temps, block{p, c})
	return p
}

func (b *Backend) dropTemps() {
	for _, t := range b.temps {
		b.devRelease(t.ptr, t.class)
	}
	b.temps = b.temps[:0]
}

// Alloc implements compute.Backend.
func (b *Backend) Alloc(dt compute.DType, n int) compute.Tensor {
	if n < 0 {
		b.fail("Alloc", "negative length %d", n)
		n = 0
	}
	if dt != compute.F32 && dt != compute.BF16 && dt != compute.I32 {
		b.fail("Alloc", "unknown dtype %v", dt)
		dt, n = compute.F32, 0
	}
	buf := &buffer{owner: b, dt: dt, n: n}
	if dt == compute.I32 {
		buf.host = make([]int32, n)
	}
	t := &tensor{buf: buf, n: n, dt: dt}
	if b.err != nil || n == 0 {
		return t
	}
	p, c, err := b.devAlloc(n * dt.Size())
	if b.failErr("Alloc", err) {
		return t
	}
	buf.ptr, buf.class = p, c
	b.failErr("Alloc", b.st.api.memset(p, n*dt.Size(), b.stream))
	b.inUse += int64(n * dt.Size())
	b.owned[buf] = struct{}{}
	return t
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
	b.forgetConv(x.buf)
	x.buf.freed = true
	if _, ok := b.owned[x.buf]; ok {
		delete(b.owned, x.buf)
		b.inUse -= int64(x.bytes())
		b.devRelease(x.buf.ptr, x.buf.class)
	}
	x.buf.host = nil
}

// Slice implements compute.Backend. A view of a bad range records the
// error and is empty.
func (b *Backend) Slice(t compute.Tensor, off, n int) compute.Tensor {
	x := b.own("Slice", "t", t)
	if x == nil {
		return &tensor{buf: &buffer{owner: b, dt: compute.F32}, dt: compute.F32, view: true}
	}
	if off < 0 || n < 0 || off+n > x.n {
		b.fail("Slice", "[%d, %d+%d) is outside a tensor of %d elements", off, off, n, x.n)
		return &tensor{buf: &buffer{owner: b, dt: x.dt}, dt: x.dt, view: true}
	}
	return &tensor{buf: x.buf, off: x.off + off, n: n, dt: x.dt, view: true}
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
	case x.buf.owner != b:
		b.fail(op, "%s belongs to another backend", name)
	case x.buf.freed:
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

// wrote marks tensors an op writes, so cached conversions of them lapse.
func wrote(ts ...*tensor) {
	for _, t := range ts {
		if t != nil {
			t.buf.version++
		}
	}
}

// Upload implements compute.Backend.
func (b *Backend) Upload(dst compute.Tensor, src any) {
	x := b.own("Upload", "dst", dst)
	if x == nil {
		return
	}
	var n int
	var ptr unsafe.Pointer
	switch s := src.(type) {
	case []float32:
		n = len(s)
		if n != x.n {
			break
		}
		switch x.dt {
		case compute.F32:
			if n > 0 {
				ptr = unsafe.Pointer(&s[0])
			}
		case compute.BF16:
			h := make([]uint16, n)
			for i, f := range s {
				h[i] = safetensors.Float32ToBF16(f)
			}
			if n > 0 {
				ptr = unsafe.Pointer(&h[0])
			}
		default:
			b.fail("Upload", "[]float32 into a %v tensor", x.dt)
			return
		}
	case []uint16:
		n = len(s)
		if n != x.n {
			break
		}
		if x.dt != compute.BF16 {
			b.fail("Upload", "[]uint16 (bfloat16 bits) into a %v tensor", x.dt)
			return
		}
		if n > 0 {
			ptr = unsafe.Pointer(&s[0])
		}
	case []int32:
		n = len(s)
		if n != x.n {
			break
		}
		if x.dt != compute.I32 {
			b.fail("Upload", "[]int32 into a %v tensor", x.dt)
			return
		}
		copy(x.ints(), s)
		if n > 0 {
			ptr = unsafe.Pointer(&s[0])
		}
	default:
		b.fail("Upload", "source %T (want []float32, []uint16 or []int32)", src)
		return
	}
	if n != x.n {
		b.fail("Upload", "source has %d elements, dst %d", n, x.n)
		return
	}
	wrote(x)
	if n > 0 {
		b.failErr("Upload", b.st.api.htod(x.ptr(), ptr, x.bytes(), b.stream))
	}
}

// Download implements compute.Backend.
func (b *Backend) Download(dst any, src compute.Tensor) {
	x := b.own("Download", "src", src)
	if x == nil {
		return
	}
	var ptr unsafe.Pointer
	var widen []float32
	var h []uint16
	switch d := dst.(type) {
	case []float32:
		if len(d) != x.n {
			b.fail("Download", "dst has %d elements, src %d", len(d), x.n)
			return
		}
		switch x.dt {
		case compute.F32:
			if x.n > 0 {
				ptr = unsafe.Pointer(&d[0])
			}
		case compute.BF16:
			h = make([]uint16, x.n)
			widen = d
			if x.n > 0 {
				ptr = unsafe.Pointer(&h[0])
			}
		default:
			b.fail("Download", "%v tensor into []float32", x.dt)
			return
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
		if x.n > 0 {
			ptr = unsafe.Pointer(&d[0])
		}
	default:
		b.fail("Download", "destination %T (want []float32 or []int32)", dst)
		return
	}
	if x.n == 0 {
		return
	}
	if b.failErr("Download", b.st.api.dtoh(ptr, x.ptr(), x.bytes(), b.stream)) ||
		b.failErr("Download", b.st.api.streamSync(b.stream)) {
		return
	}
	for i, v := range h {
		widen[i] = safetensors.BF16ToFloat32(v)
	}
}

// Zero implements compute.Backend.
func (b *Backend) Zero(t compute.Tensor) {
	x := b.own("Zero", "t", t)
	if x == nil {
		return
	}
	wrote(x)
	if x.dt == compute.I32 {
		clear(x.ints())
	}
	if x.n > 0 {
		b.failErr("Zero", b.st.api.memset(x.ptr(), x.bytes(), b.stream))
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
	wrote(d)
	if d.dt == compute.I32 {
		copy(d.ints(), s.ints())
	}
	if d.n > 0 {
		b.failErr("Copy", b.st.api.dtod(d.ptr(), s.ptr(), d.bytes(), b.stream))
	}
}
