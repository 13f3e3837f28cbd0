package net

import (
	"mascot.dev/mascot/trainer/compute"
	"mascot.dev/mascot/trainer/lora"
	"mascot.dev/mascot/trainer/qwen3"
)

// gemm is Backend.Gemm, counted as 2mnk hardware FLOPs.
func (m *Model) gemm(transA, transB bool, M, N, K int, alpha float32, a compute.Tensor, lda int, b compute.Tensor, ldb int, beta float32, c compute.Tensor, ldc int) {
	m.flops.Hardware += 2 * float64(M) * float64(N) * float64(K)
	m.be.Gemm(transA, transB, M, N, K, alpha, a, lda, b, ldb, beta, c, ldc)
}

// adapted reports whether projection p of layer li runs its LoRA branch
// in this pass.
func (m *Model) adapted(gc *groupCtx, li int, p qwen3.Proj) bool {
	return gc.adapters && m.layers[li].a[p] != nil
}

// dropIn writes the LoRA branch's input of projection p: x with PEFT's
// dropout, row by row (lora.DropoutSeed), into the "xd" buffer; without
// dropout it is x itself.
func (m *Model) dropIn(gc *groupCtx, li int, p qwen3.Proj, x compute.Tensor, in int) compute.Tensor {
	if !gc.dropout {
		return x
	}
	g := gc.g
	xd := m.bufs.f32("xd", g.n*in)
	row := g.T * in
	for j, r := range g.rows {
		seed := lora.DropoutSeed(gc.seed, li, p, r)
		m.be.Dropout(m.be.Slice(xd, j*row, row), m.be.Slice(x, j*row, row), gc.p, seed)
	}
	return xd
}

// project computes y = x·Wᵀ + s·(drop(x)·Aᵀ)·Bᵀ for projection p of layer
// li over the group's tokens (beta 1 adds into y). u receives
// drop(x)·Aᵀ [n, r] when the projection is adapted.
func (m *Model) project(gc *groupCtx, li int, p qwen3.Proj, x, y compute.Tensor, beta float32, u compute.Tensor) {
	n := gc.g.n
	out, in := m.d.shape(p)
	l := &m.layers[li]
	m.gemm(false, true, n, out, in, 1, x, in, l.w[p].v, in, beta, y, out)
	if !m.adapted(gc, li, p) {
		return
	}
	m.loraU(gc, li, p, x, u)
	m.gemm(false, true, n, out, m.Options.LoRA.R, m.scale, u, m.Options.LoRA.R, l.b[p].v, m.Options.LoRA.R, 1, y, out)
}

// loraU writes u = drop(x)·Aᵀ [n, r], the LoRA branch's low-rank
// activation of projection p (a backward reads it for B's gradient).
func (m *Model) loraU(gc *groupCtx, li int, p qwen3.Proj, x, u compute.Tensor) {
	_, in := m.d.shape(p)
	r := m.Options.LoRA.R
	xin := m.dropIn(gc, li, p, x, in)
	m.gemm(false, true, gc.g.n, r, in, 1, xin, in, m.layers[li].a[p].v, in, 0, u, r)
}

// projectBack is project's backward: given dy [n, out], it writes dx
// (beta 0) or adds to it (beta 1) when dx is not nil, and adds the
// gradients of the trainable W, A and B. x and u are the forward's.
func (m *Model) projectBack(gc *groupCtx, li int, p qwen3.Proj, x, u, dy, dx compute.Tensor, beta float32) {
	n := gc.g.n
	out, in := m.d.shape(p)
	l := &m.layers[li]
	if dx != nil {
		m.gemm(false, false, n, in, out, 1, dy, out, l.w[p].v, in, beta, dx, in)
	}
	if w := l.w[p]; w.trainable {
		m.gemm(true, false, out, in, n, 1, dy, out, x, in, 1, w.g, in)
	}
	if !m.adapted(gc, li, p) {
		return
	}
	r := m.Options.LoRA.R
	a, b := l.a[p], l.b[p]
	du := m.bufs.f32("du", n*r)
	m.gemm(false, false, n, r, out, m.scale, dy, out, b.v, r, 0, du, r) // du = s·dy·B
	if b.trainable {
		m.gemm(true, false, out, r, n, m.scale, dy, out, u, r, 1, b.g, r) // dB += s·dyᵀ·u
	}
	if a.trainable {
		xin := m.dropIn(gc, li, p, x, in)
		m.gemm(true, false, r, in, n, 1, du, r, xin, in, 1, a.g, in) // dA += duᵀ·drop(x)
	}
	if dx == nil {
		return
	}
	if !gc.dropout {
		m.gemm(false, false, n, in, r, 1, du, r, a.v, in, 1, dx, in) // dx += du·A
		return
	}
	dxd := m.bufs.f32("dxd", n*in)
	m.gemm(false, false, n, in, r, 1, du, r, a.v, in, 0, dxd, in)
	// The dropout mask is linear and diagonal: its backward is itself.
	g := gc.g
	row := g.T * in
	for j, rr := range g.rows {
		v := m.be.Slice(dxd, j*row, row)
		m.be.Dropout(v, v, gc.p, lora.DropoutSeed(gc.seed, li, p, rr))
	}
	m.be.Add(dx, dxd)
}
