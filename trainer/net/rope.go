package net

import (
	"mascot.dev/mascot/trainer/compute"
	"mascot.dev/mascot/trainer/qwen3"
)

// ropeTables are the cos and sin tables [n, hd/2] on the backend, grown to
// the longest row seen (qwen3.RopeTables: transformers' float32 formula).
type ropeTables struct {
	cos, sin compute.Tensor
	n        int
}

func (r *ropeTables) free(be compute.Backend) {
	if r.cos != nil {
		be.Free(r.cos)
		be.Free(r.sin)
	}
	r.cos, r.sin, r.n = nil, nil, 0
}

// ensure makes the tables cover positions 0..T−1 (rounded up to a
// multiple of 256, so growing rows do not rebuild them each time).
func (m *Model) ensureRope(T int) {
	r := &m.rope
	if T <= r.n {
		return
	}
	n := (T + 255) / 256 * 256
	r.free(m.be)
	c, s := qwen3.RopeTables(m.d.theta, m.d.hd, n)
	r.cos, r.sin = m.be.Alloc(compute.F32, len(c)), m.be.Alloc(compute.F32, len(s))
	m.be.Upload(r.cos, c)
	m.be.Upload(r.sin, s)
	r.n = n
}
