package dialogue

import (
	"context"
	"fmt"

	"mascot.dev/mascot/runner/datasets"
)

// RunEpisode runs one independent episode of cfg.Turns rounds for sample s.
// Each round is: the system's agent turn (Director -> Speaker for the MASCOT
// systems, the baseline's reply otherwise), then, when cfg.UserSim is
// enabled and the seeded coin allows, a simulated user turn.
//
// In tolerant mode (default) failures are counted in Episode.Counters and
// the episode continues; the error is non-nil only for configuration or
// template errors and context cancellation. In strict mode the first
// failure is returned together with the partial episode.
func RunEpisode(ctx context.Context, ch Chatter, cfg Config, s datasets.Sample) (Episode, error) {
	e, err := newEngine(ch, cfg, s)
	if err != nil {
		return Episode{}, err
	}
	st, ok, err := e.open(ctx)
	if err != nil {
		return e.episode(st), err
	}
	if !ok {
		return e.skipped(st)
	}
	spoke := 0
	for round := range e.cfg.Turns {
		if err := ctx.Err(); err != nil {
			return e.episode(st), fmt.Errorf("running episode %s: %w", s.ID, err)
		}
		ok, err := e.agentRound(ctx, st, round, "")
		if err != nil {
			return e.episode(st), fmt.Errorf("running episode %s round %d: %w", s.ID, round, err)
		}
		if !ok {
			continue
		}
		spoke++
		if err := e.maybeUser(ctx, st, round, ""); err != nil {
			return e.episode(st), fmt.Errorf("running episode %s round %d: %w", s.ID, round, err)
		}
	}
	if spoke == 0 && e.cfg.Turns > 0 {
		return e.skipped(st)
	}
	return e.episode(st), nil
}

// skipped marks the episode as skipped (counted); strict mode returns
// ErrSkippedSample.
func (e *engine) skipped(st *state) (Episode, error) {
	e.c.counters.NumSkippedSamples++
	ep := e.episode(st)
	ep.Skipped = true
	if e.cfg.Strict {
		return ep, fmt.Errorf("running episode %s: %w", e.sample.ID, ErrSkippedSample)
	}
	return ep, nil
}

// agentRound produces the round's agent turn with the configured system.
// It returns whether a turn was recorded.
func (e *engine) agentRound(ctx context.Context, st *state, round int, branch string) (bool, error) {
	switch e.cfg.System {
	case SystemMASCOT, SystemMASCOTP, SystemMASCOTC:
		d, err := e.directives(ctx, st, round, branch, 1)
		if err != nil {
			return false, err
		}
		return e.speak(ctx, st, d.ds[0], d.raws[0], round, branch)
	case SystemMultiAgentESC:
		return e.escRound(ctx, st, round, branch)
	case SystemSelfConsistency:
		return e.selfConsistencyRound(ctx, st, round, branch)
	default:
		return e.baselineRound(ctx, st, round, branch)
	}
}
