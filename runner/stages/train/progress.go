package train

import (
	"context"
	"fmt"
	"strings"
	"time"

	"mascot.dev/mascot/results"
	"mascot.dev/mascot/runner"
	"mascot.dev/mascot/trainer/train"
)

// stepReporter shows a training unit's progress while it runs: every
// optimizer step goes to the run's progress display (Env.Status: a live
// line on a terminal, throttled "stage KEY: step=..." lines in a log) and
// into the training_steps table, so the viewer's curves grow during the
// run rather than appearing when the unit commits.
type stepReporter struct {
	env      *runner.Env
	ctx      context.Context
	unit     results.Unit
	total    int
	perEpoch int
	began    time.Time
	first    int // the first step this process ran (after a resume)
}

// reportSteps returns the OnStep hook of a training unit of kind with
// total optimizer steps; perEpoch is as for stepRows.
func reportSteps(ctx context.Context, env *runner.Env, key, kind string, u runner.Unit, total, perEpoch int) func(train.Metrics) {
	r := &stepReporter{env: env, ctx: ctx, total: total, perEpoch: perEpoch, began: time.Now(), first: -1,
		unit: results.Unit{Fingerprint: u.Fingerprint, Kind: kind, StageKey: key, RunID: env.RunID}}
	return r.step
}

func (r *stepReporter) step(m train.Metrics) {
	if r.first < 0 {
		r.first = m.Step - 1
	}
	r.env.Status(r.unit.StageKey, r.line(m, time.Since(r.began)))
	if r.unit.Fingerprint == "" || r.env.Store == nil {
		return
	}
	row := stepRows(r.unit.StageKey, []train.Metrics{m}, r.perEpoch)[0]
	err := r.env.Store.WithUnit(r.ctx, r.unit, func(tx *results.Tx) error {
		_, err := tx.InsertTrainingStep(row)
		return err
	})
	if err != nil && r.ctx.Err() == nil {
		r.env.Log.Warn("recording a training step live", "stage", r.unit.StageKey, "step", m.Step, "err", err)
	}
}

// line renders "step=3/6 loss=0.4123 reward=0.250 tok/s=812 eta=1m4s";
// the ETA extrapolates the mean time of this process's steps so far.
func (r *stepReporter) line(m train.Metrics, elapsed time.Duration) string {
	var b strings.Builder
	fmt.Fprintf(&b, "step=%d/%d loss=%.4g", m.Step, r.total, m.Loss)
	if m.RewardMean != 0 || m.RewardStd != 0 {
		fmt.Fprintf(&b, " reward=%.3g", m.RewardMean)
	}
	fmt.Fprintf(&b, " tok/s=%.0f", m.TokensPerSec)
	if done := m.Step - r.first; done > 0 && m.Step < r.total {
		eta := elapsed / time.Duration(done) * time.Duration(r.total-m.Step)
		fmt.Fprintf(&b, " eta=%s", eta.Round(time.Second))
	}
	return b.String()
}
