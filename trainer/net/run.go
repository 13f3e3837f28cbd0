package net

import (
	"context"
	"fmt"

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
