package net

import (
	"context"
	"math"

	"mascot.dev/mascot/trainer/compute"
	"mascot.dev/mascot/trainer/qwen3"
)

// groupCtx is what a layer needs about the group it runs on.
type groupCtx struct {
	g              *group
	ids, pos, lens compute.Tensor // I32 on the backend
	adapters       bool           // LoRA branches run (not DisableAdapter)
	dropout        bool
	p              float32 // LoRA dropout probability
	seed           uint64  // the pass's dropout seed
}

// acts are one layer's activations over a group's n tokens: what the
// backward reads. In checkpointing mode one set is reused by every layer
// (the backward recomputes it from the layer's input); with
// KeepActivations each (layer, group) has its own.
type acts struct {
	xn1, rstd1, qraw, q, rstdq, kraw, k, rstdk, v, o, lse compute.Tensor
	h2, xn2, rstd2, gate, up, act                         compute.Tensor
	u                                                     [qwen3.NumProj]compute.Tensor
}

// actsSize is the F32 elements of acts over n tokens.
func (m *Model) actsSize(n int) int {
	d := m.d
	s := n * (3*d.D + 2 + 4*d.qd + 2*d.H + 3*d.kvd + d.K + 3*d.I + d.H)
	if m.Options.LoRA != nil {
		s += n * m.Options.LoRA.R * int(qwen3.NumProj)
	}
	return s
}

// newActs carves acts for n tokens out of t (actsSize(n) elements).
func (m *Model) newActs(t compute.Tensor, n int) *acts {
	d := m.d
	p := carve(m.be, t, n*d.D, n, n*d.qd, n*d.qd, n*d.H, n*d.kvd, n*d.kvd, n*d.K, n*d.kvd, n*d.qd, n*d.H,
		n*d.D, n*d.D, n, n*d.I, n*d.I, n*d.I)
	a := &acts{xn1: p[0], rstd1: p[1], qraw: p[2], q: p[3], rstdq: p[4], kraw: p[5], k: p[6], rstdk: p[7], v: p[8],
		o: p[9], lse: p[10], h2: p[11], xn2: p[12], rstd2: p[13], gate: p[14], up: p[15], act: p[16]}
	if m.Options.LoRA != nil {
		off := n * (3*d.D + 2 + 4*d.qd + 2*d.H + 3*d.kvd + d.K + 3*d.I + d.H)
		r := m.Options.LoRA.R
		for pj := range a.u {
			a.u[pj] = m.be.Slice(t, off+pj*n*r, n*r)
		}
	}
	return a
}

// attn is the group's attention call over a's tensors.
func (m *Model) attn(gc *groupCtx, a *acts) compute.Attn {
	d := m.d
	return compute.Attn{Q: a.q, K: a.k, V: a.v, Out: a.o, LSE: a.lse, Lens: gc.lens,
		B: len(gc.g.rows), T: gc.g.T, H: d.H, KV: d.K, D: d.hd, Scale: float32(math.Pow(float64(d.hd), -0.5))}
}

// attnFLOPs is 4·hd·H per (query, key) pair the causal attention visits.
func (m *Model) attnFLOPs(g *group) float64 {
	var pairs float64
	for _, L := range g.lens {
		l := float64(L)
		pairs += l*(l+1)/2 + float64(g.T-int(L))*l // real queries, then padded ones
	}
	return 4 * float64(m.d.hd*m.d.H) * pairs
}

// steps runs ops in order, checking the context after each: every op of
// a layer is at most one large matrix product (a Qwen3-0.6B gate
// projection over 2,048 tokens is 13 GFLOP), so a cancelled pass stops
// within one of them.
func steps(ctx context.Context, ops ...func()) error {
	for _, op := range ops {
		op()
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	return nil
}

// layerForward runs decoder layer li over the group from its input h,
// filling a (docs/design/qwen3.md, "Forward"); with out it also writes the
// layer's output (a recompute for the backward needs only a).
func (m *Model) layerForward(ctx context.Context, gc *groupCtx, li int, h compute.Tensor, a *acts, out compute.Tensor) error {
	d, l, be, n := m.d, &m.layers[li], m.be, gc.g.n
	return steps(ctx,
		func() {
			be.RMSNorm(a.xn1, a.rstd1, h, l.inNorm.v, n, d.D, d.eps)
			m.project(gc, li, qwen3.QProj, a.xn1, a.qraw, 0, a.u[qwen3.QProj])
		},
		func() { m.project(gc, li, qwen3.KProj, a.xn1, a.kraw, 0, a.u[qwen3.KProj]) },
		func() { m.project(gc, li, qwen3.VProj, a.xn1, a.v, 0, a.u[qwen3.VProj]) },
		func() {
			be.RMSNorm(a.q, a.rstdq, a.qraw, l.qNorm.v, n*d.H, d.hd, d.eps)
			be.RMSNorm(a.k, a.rstdk, a.kraw, l.kNorm.v, n*d.K, d.hd, d.eps)
			be.RoPE(a.q, gc.pos, m.rope.cos, m.rope.sin, n, d.H, d.hd, false)
			be.RoPE(a.k, gc.pos, m.rope.cos, m.rope.sin, n, d.K, d.hd, false)
			m.flops.Hardware += m.attnFLOPs(gc.g)
			be.Attention(m.attn(gc, a))
		},
		func() {
			be.Copy(a.h2, h)
			m.project(gc, li, qwen3.OProj, a.o, a.h2, 1, a.u[qwen3.OProj])
		},
		func() {
			be.RMSNorm(a.xn2, a.rstd2, a.h2, l.postNorm.v, n, d.D, d.eps)
			m.project(gc, li, qwen3.GateProj, a.xn2, a.gate, 0, a.u[qwen3.GateProj])
		},
		func() { m.project(gc, li, qwen3.UpProj, a.xn2, a.up, 0, a.u[qwen3.UpProj]) },
		func() {
			be.SwiGLU(a.act, a.gate, a.up)
			switch {
			case out != nil:
				be.Copy(out, a.h2)
				m.project(gc, li, qwen3.DownProj, a.act, out, 1, a.u[qwen3.DownProj])
			case m.adapted(gc, li, qwen3.DownProj):
				m.loraU(gc, li, qwen3.DownProj, a.act, a.u[qwen3.DownProj]) // for dB
			}
		},
	)
}

// layerBackward turns dh, the gradient of layer li's output, into the
// gradient of its input h (in place; skipped when needDx is false, at the
// first layer of a frozen embedding, whose input norm is frozen too), adding
// every trainable weight's gradient. a holds the layer's activations over
// the group.
func (m *Model) layerBackward(ctx context.Context, gc *groupCtx, li int, h compute.Tensor, a *acts, dh compute.Tensor, needDx bool) error {
	d, l, be, n := m.d, &m.layers[li], m.be, gc.g.n
	dact := m.bufs.f32("g.dact", n*d.I)
	dgate, dup := m.bufs.f32("g.dgate", n*d.I), m.bufs.f32("g.dup", n*d.I)
	dxn := m.bufs.f32("g.dxn", n*d.D)
	do := m.bufs.f32("g.do", n*d.qd)
	dq, dqraw := m.bufs.f32("g.dq", n*d.qd), m.bufs.f32("g.dqraw", n*d.qd)
	dk, dkraw, dv := m.bufs.f32("g.dk", n*d.kvd), m.bufs.f32("g.dkraw", n*d.kvd), m.bufs.f32("g.dv", n*d.kvd)
	var dx compute.Tensor
	if needDx {
		dx = dxn
	}
	return steps(ctx,
		// MLP: h3 = h2 + down(silu(gate(xn2))·up(xn2)).
		func() { m.projectBack(gc, li, qwen3.DownProj, a.act, a.u[qwen3.DownProj], dh, dact, 0) },
		func() {
			be.SwiGLUBackward(dgate, dup, dact, a.gate, a.up)
			m.projectBack(gc, li, qwen3.GateProj, a.xn2, a.u[qwen3.GateProj], dgate, dxn, 0)
		},
		func() { m.projectBack(gc, li, qwen3.UpProj, a.xn2, a.u[qwen3.UpProj], dup, dxn, 1) },
		func() {
			be.RMSNormBackward(dh, grad(l.postNorm), dxn, a.h2, l.postNorm.v, a.rstd2, n, d.D, true)
			// Attention: h2 = h + o_proj(attn(rope(q_norm(q)), rope(k_norm(k)), v)).
			m.projectBack(gc, li, qwen3.OProj, a.o, a.u[qwen3.OProj], dh, do, 0)
		},
		func() {
			m.flops.Hardware += 2.5 * m.attnFLOPs(gc.g)
			be.AttentionBackward(m.attn(gc, a), do, dq, dk, dv)
		},
		func() {
			be.RoPE(dq, gc.pos, m.rope.cos, m.rope.sin, n, d.H, d.hd, true)
			be.RoPE(dk, gc.pos, m.rope.cos, m.rope.sin, n, d.K, d.hd, true)
			be.RMSNormBackward(dqraw, grad(l.qNorm), dq, a.qraw, l.qNorm.v, a.rstdq, n*d.H, d.hd, false)
			be.RMSNormBackward(dkraw, grad(l.kNorm), dk, a.kraw, l.kNorm.v, a.rstdk, n*d.K, d.hd, false)
			m.projectBack(gc, li, qwen3.QProj, a.xn1, a.u[qwen3.QProj], dqraw, dx, 0)
		},
		func() { m.projectBack(gc, li, qwen3.KProj, a.xn1, a.u[qwen3.KProj], dkraw, dx, 1) },
		func() {
			m.projectBack(gc, li, qwen3.VProj, a.xn1, a.u[qwen3.VProj], dv, dx, 1)
			if needDx {
				be.RMSNormBackward(dh, grad(l.inNorm), dxn, h, l.inNorm.v, a.rstd1, n, d.D, true)
			}
		},
	)
}

// grad is p's gradient, or nil for a frozen parameter.
func grad(p *param) compute.Tensor {
	if p.trainable {
		return p.g
	}
	return nil
}
