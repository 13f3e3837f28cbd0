package net

import (
	"context"
	"fmt"

	"mascot.dev/mascot/trainer/compute"
	"mascot.dev/mascot/trainer/pass"
)

// The three ways a pass covers its groups: forward only, forward and
// backward group by group (seeds known), and every group forward then
// every group backward (seeds from the scores).

// forwardOnly runs each group through every layer with two ping-pong
// hidden buffers and one set of activations.
func (m *Model) forwardOnly(ctx context.Context, pl *plan, gcs []*groupCtx, out *pass.Outputs) error {
	d := m.d
	for _, gc := range gcs {
		n := gc.g.n
		m.upload(gc)
		h := [2]compute.Tensor{m.bufs.f32("f.h0", n*d.D), m.bufs.f32("f.h1", n*d.D)}
		a := m.newActs(m.bufs.f32("acts", m.actsSize(n)), n)
		m.be.Gather(h[0], m.embed.v, gc.ids, d.D)
		for li := range m.layers {
			if err := m.layerForward(ctx, gc, li, h[li%2], a, h[(li+1)%2]); err != nil {
				return err
			}
		}
		if err := m.runHead(ctx, gc, pl, h[d.L%2], out, nil, nil); err != nil {
			return err
		}
	}
	return nil
}

// store is one group's layer inputs: in[l] for l < L, in[L] the output.
type store struct{ in []compute.Tensor }

func (m *Model) newStore(t compute.Tensor, n int) store {
	sizes := make([]int, m.d.L+1)
	for i := range sizes {
		sizes[i] = n * m.d.D
	}
	return store{in: carve(m.be, t, sizes...)}
}

// forwardStored runs a group forward, keeping every layer's input in st
// (and its activations in keep, when KeepActivations).
func (m *Model) forwardStored(ctx context.Context, gc *groupCtx, st store, keep []*acts) error {
	n := gc.g.n
	m.be.Gather(st.in[0], m.embed.v, gc.ids, m.d.D)
	var a *acts
	if keep == nil {
		a = m.newActs(m.bufs.f32("acts", m.actsSize(n)), n)
	}
	for li := range m.layers {
		if keep != nil {
			a = keep[li]
		}
		if err := m.layerForward(ctx, gc, li, st.in[li], a, st.in[li+1]); err != nil {
			return err
		}
	}
	return nil
}

// backwardLayers runs the layers backward from dh (the gradient of the
// last layer's output), recomputing each layer's activations from its
// stored input unless keep holds them, then adds the embedding gradient.
func (m *Model) backwardLayers(ctx context.Context, gc *groupCtx, st store, keep []*acts, dh compute.Tensor) error {
	n := gc.g.n
	embedTrained := m.embed.trainable
	var a *acts
	if keep == nil {
		a = m.newActs(m.bufs.f32("acts", m.actsSize(n)), n)
	}
	for li := len(m.layers) - 1; li >= 0; li-- {
		if keep != nil {
			a = keep[li]
		} else if err := m.layerForward(ctx, gc, li, st.in[li], a, nil); err != nil {
			return err
		}
		if err := m.layerBackward(ctx, gc, li, st.in[li], a, dh, li > 0 || embedTrained); err != nil {
			return err
		}
	}
	if embedTrained {
		m.be.ScatterAdd(m.embed.g, dh, gc.ids, m.d.D)
	}
	return ctx.Err()
}

// keepActs carves per-layer activations for a group from the "keep"
// buffer at offset off (elements), or returns nil without KeepActivations.
func (m *Model) keepActs(t compute.Tensor, off, n int) []*acts {
	if !m.Options.KeepActivations {
		return nil
	}
	sz := m.actsSize(n)
	out := make([]*acts, m.d.L)
	for li := range out {
		out[li] = m.newActs(m.be.Slice(t, off+li*sz, sz), n)
	}
	return out
}

// streamed runs each group forward and at once backward: the seeds are
// known, so the store holds one group.
func (m *Model) streamed(ctx context.Context, pl *plan, gcs []*groupCtx, out *pass.Outputs, seed seedFunc) error {
	d := m.d
	for _, gc := range gcs {
		n := gc.g.n
		m.upload(gc)
		st := m.newStore(m.bufs.f32("store", (d.L+1)*n*d.D), n)
		var keep []*acts
		if m.Options.KeepActivations {
			keep = m.keepActs(m.bufs.f32("keep", d.L*m.actsSize(n)), 0, n)
		}
		if err := m.forwardStored(ctx, gc, st, keep); err != nil {
			return err
		}
		dh := m.bufs.f32("g.dh", n*d.D)
		m.be.Zero(dh)
		if err := m.runHead(ctx, gc, pl, st.in[d.L], out, seed, dh); err != nil {
			return err
		}
		if err := m.backwardLayers(ctx, gc, st, keep, dh); err != nil {
			return err
		}
	}
	return nil
}

// stored runs every group forward, keeping all their layer inputs, asks
// seedFn for the score seeds, then runs every group backward.
func (m *Model) stored(ctx context.Context, pl *plan, gcs []*groupCtx, out *pass.Outputs, seedFn func([][]float64) ([][]float64, error)) error {
	d := m.d
	total, keepTotal := 0, 0
	for _, gc := range gcs {
		total += gc.g.n
		keepTotal += d.L * m.actsSize(gc.g.n)
	}
	all := m.bufs.f32("store", (d.L+1)*total*d.D)
	var keepBuf compute.Tensor
	if m.Options.KeepActivations {
		keepBuf = m.bufs.f32("keep", keepTotal)
	}
	sts, keeps := make([]store, len(gcs)), make([][]*acts, len(gcs))
	off, koff := 0, 0
	for i, gc := range gcs {
		n := gc.g.n
		sts[i] = m.newStore(m.be.Slice(all, off, (d.L+1)*n*d.D), n)
		keeps[i] = m.keepActs(keepBuf, koff, n)
		off += (d.L + 1) * n * d.D
		koff += d.L * m.actsSize(n)
		m.upload(gc)
		if err := m.forwardStored(ctx, gc, sts[i], keeps[i]); err != nil {
			return err
		}
		if err := m.runHead(ctx, gc, pl, sts[i].in[d.L], out, nil, nil); err != nil {
			return err
		}
	}
	seeds, err := seedFn(out.Score)
	if err != nil {
		return fmt.Errorf("seeding the score gradient: %w", err)
	}
	for i, gc := range gcs {
		m.upload(gc)
		dh := m.bufs.f32("g.dh", gc.g.n*d.D)
		m.be.Zero(dh)
		if err := m.runHead(ctx, gc, pl, sts[i].in[d.L], out, seedAt(seeds), dh); err != nil {
			return err
		}
		if err := m.backwardLayers(ctx, gc, sts[i], keeps[i], dh); err != nil {
			return err
		}
	}
	return nil
}
