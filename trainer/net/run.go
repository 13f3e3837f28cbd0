package net

import (
	"context"
	"fmt"

	"mascot.dev/mascot/trainer/compute"
	"mascot.dev/mascot/trainer/pass"
)

// Forward runs the network without gradients and returns the wanted
// log-probs or scores (RunOptions.LogPFrom, ScoreAt).
func (m *Model) Forward(ctx context.Context, b pass.Batch, o pass.RunOptions) (*pass.Outputs, error) {
	out, err := m.run(ctx, b, o, false, nil, nil, nil)
	if err != nil {
		return nil, fmt.Errorf("running forward: %w", err)
	}
	return out, nil
}

// Backward runs forward and backward on the surrogate
// Σ seedLogP·LogP + Σ seedScore·Score over the wanted positions and adds
// its gradient to every trainable parameter's gradient; a loss whose
// derivatives are the seeds gets its exact gradient (trainer/pass,
// trainer/autodiff's package doc). Either seed may be nil (zeros). Each
// group of rows runs forward then backward in turn, so only one group's
// layer inputs are stored. A pass stopped by its context returns the
// context's error and leaves the gradients partly accumulated (a loop
// that stops discards the step).
func (m *Model) Backward(ctx context.Context, b pass.Batch, o pass.RunOptions, seedLogP, seedScore [][]float64) (*pass.Outputs, error) {
	out, err := m.run(ctx, b, o, true, seedLogP, seedScore, nil)
	if err != nil {
		return nil, fmt.Errorf("running backward: %w", err)
	}
	return out, nil
}

// BackwardScores is Backward for a loss of the score head whose seeds
// depend on the scores themselves (Bradley–Terry): every group runs
// forward, storing its layers' inputs, seed receives the scores, and
// every group then runs backward.
func (m *Model) BackwardScores(ctx context.Context, b pass.Batch, o pass.RunOptions, seed func(score [][]float64) ([][]float64, error)) (*pass.Outputs, error) {
	if m.score == nil {
		return nil, fmt.Errorf("running backward: BackwardScores needs a score head")
	}
	out, err := m.run(ctx, b, o, true, nil, nil, seed)
	if err != nil {
		return nil, fmt.Errorf("running backward: %w", err)
	}
	return out, nil
}

func (m *Model) run(ctx context.Context, b pass.Batch, o pass.RunOptions, grad bool, seedL, seedS [][]float64, seedFn func([][]float64) ([][]float64, error)) (*pass.Outputs, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := m.be.Sync(); err != nil {
		return nil, fmt.Errorf("backend failed earlier: %w", err)
	}
	pl, err := m.makePlan(b, o)
	if err != nil {
		return nil, err
	}
	if grad && !m.anyTrainable() {
		return nil, fmt.Errorf("no trainable parameters")
	}
	out := &pass.Outputs{B: pl.B, T: pl.T}
	rows := make([][]float64, pl.B)
	for r := range rows {
		rows[r] = make([]float64, pl.T)
	}
	if pl.lm {
		out.LogP = rows
	} else {
		out.Score = rows
	}
	maxT := 0
	for _, g := range pl.groups {
		maxT = max(maxT, g.T)
	}
	m.ensureRope(maxT)
	gcs := make([]*groupCtx, len(pl.groups))
	for i := range pl.groups {
		gcs[i] = m.groupCtx(&pl.groups[i], o)
	}
	m.flops.Model += m.modelFLOPs(pl, grad)
	m.flops.Tokens += int64(pl.realTokens)
	switch {
	case !grad:
		err = m.forwardOnly(ctx, pl, gcs, out)
	case seedFn == nil:
		seed := seedL
		if !pl.lm {
			seed = seedS
		}
		err = m.streamed(ctx, pl, gcs, out, seedAt(seed))
	default:
		err = m.stored(ctx, pl, gcs, out, seedFn)
	}
	if err != nil {
		return nil, err
	}
	if err := m.be.Sync(); err != nil {
		return nil, err
	}
	return out, nil
}

func (m *Model) anyTrainable() bool {
	for _, p := range m.params {
		if p.trainable {
			return true
		}
	}
	return false
}

// seedAt reads a [B][T] seed (nil rows and positions past a row read 0).
func seedAt(s [][]float64) seedFunc {
	return func(at rowPos) float64 {
		if at.row >= len(s) || at.t >= len(s[at.row]) {
			return 0
		}
		return s[at.row][at.t]
	}
}

func (m *Model) groupCtx(g *group, o pass.RunOptions) *groupCtx {
	gc := &groupCtx{g: g, adapters: m.Options.LoRA != nil && !o.DisableAdapter, seed: o.DropoutSeed}
	if gc.adapters && o.Dropout && m.Options.LoRA.Dropout > 0 {
		gc.dropout, gc.p = true, float32(m.Options.LoRA.Dropout)
	}
	return gc
}

// upload puts the group's ids, positions and lengths on the backend.
func (m *Model) upload(gc *groupCtx) {
	g := gc.g
	gc.ids, gc.pos, gc.lens = m.bufs.i32("g.ids", g.n), m.bufs.i32("g.pos", g.n), m.bufs.i32("g.lens", len(g.rows))
	m.be.Upload(gc.ids, g.ids)
	m.be.Upload(gc.pos, g.pos)
	m.be.Upload(gc.lens, g.lens)
}

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
