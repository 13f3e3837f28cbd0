package net

import (
	"runtime/debug"

	"mascot.dev/mascot/trainer/compute"
)

// buffers are the model's named scratch tensors. A request for n elements
// of a name returns a view of the name's allocation, which is replaced by
// a larger one when n exceeds it: every buffer ends up sized to the
// largest request seen and is reused by every later pass, so no pass
// allocates once the largest batch has run. A name serves one purpose at
// a time, so a view stays valid until the next request of its name.
type buffers struct {
	be compute.Backend
	m  map[string]compute.Tensor
}

// get returns n elements of dtype dt under name (contents undefined).
func (b *buffers) get(name string, dt compute.DType, n int) compute.Tensor {
	if b.m == nil {
		b.m = map[string]compute.Tensor{}
	}
	t, ok := b.m[name]
	if ok && (t.DType() != dt || t.Len() < n) {
		b.be.Free(t)
		ok = false
	}
	if !ok {
		t = b.be.Alloc(dt, max(n, 1))
		b.m[name] = t
	}
	return b.be.Slice(t, 0, n)
}

// f32 is get for F32.
func (b *buffers) f32(name string, n int) compute.Tensor { return b.get(name, compute.F32, n) }

// i32 is get for I32.
func (b *buffers) i32(name string, n int) compute.Tensor { return b.get(name, compute.I32, n) }

// drop frees the buffers whose names start with prefix.
func (b *buffers) drop(prefix string) {
	for name, t := range b.m {
		if len(name) >= len(prefix) && name[:len(prefix)] == prefix {
			b.be.Free(t)
			delete(b.m, name)
		}
	}
}

// freeAll frees every buffer and, when that released a lot, returns the
// memory to the system at once: the callers (Weights, MergedWeights) are
// about to allocate a float32 copy of the model, and without a collection
// first the heap would grow by the copy on top of the freed scratch (a
// Qwen3-0.6B reward model's merged save peaked at 5.7 GiB against 3.4
// during training).
func (b *buffers) freeAll() {
	n := b.bytes()
	b.drop("")
	if n >= 256<<20 {
		debug.FreeOSMemory()
	}
}

// bytes is the memory the buffers hold.
func (b *buffers) bytes() int64 {
	var n int64
	for _, t := range b.m {
		n += int64(t.Len()) * int64(t.DType().Size())
	}
	return n
}

// carve cuts t into consecutive views of the given sizes.
func carve(be compute.Backend, t compute.Tensor, sizes ...int) []compute.Tensor {
	out := make([]compute.Tensor, len(sizes))
	off := 0
	for i, n := range sizes {
		out[i] = be.Slice(t, off, n)
		off += n
	}
	return out
}
