package runner

import (
	"context"
	"errors"
	"fmt"
	"io"

	"mascot.dev/mascot/results"
)

// PublishStored publishes the units run runID stored under stage key when
// the run's config has no such finished stage: the conversations `mascot
// chat` stored under stage "chat" are the case. The session's config must
// declare key (so that stages reading it resolve its kind); it fails when
// the run holds no done unit of key.
func (s *Session) PublishStored(ctx context.Context, key string) (int, error) {
	if _, ok := s.r.kinds[key]; !ok {
		return 0, fmt.Errorf("stage %q is not in the session's config", key)
	}
	fps, err := s.r.opts.Store.StageUnits(ctx, s.r.env.RunID, []string{key})
	if errors.Is(err, results.ErrNotFound) || err == nil && len(fps) == 0 {
		return 0, fmt.Errorf("run %s: %w under stage %q", s.r.env.RunID, ErrNothingStored, key)
	}
	if err != nil {
		return 0, fmt.Errorf("reading the units of stage %s: %w", key, err)
	}
	if err := s.r.publish(ctx, key, fps); err != nil {
		return 0, err
	}
	return len(fps), nil
}

// ErrNothingStored is returned (wrapped) by PublishStored for a stage the
// run stored no done unit under.
var ErrNothingStored = errors.New("nothing stored")

// RunStage runs stage key of the session's config in the reopened run, as
// `mascot run` would have (units fingerprinted and cached, claimed,
// committed with their counters, the stage row recorded), with progress
// lines to w (nil: none). Its inputs must be published: finished stages of
// the run are, others through PublishStored.
func (s *Session) RunStage(ctx context.Context, key string, progress io.Writer) (*StageSummary, error) {
	if _, ok := s.r.kinds[key]; !ok {
		return nil, fmt.Errorf("stage %q is not in the session's config", key)
	}
	s.r.prog = newProgress(progress)
	s.r.env.status = s.r.prog.status
	err := s.r.runStage(ctx, key)
	s.r.prog.stop()
	if rerr := s.r.opts.Store.ReleaseClaims(context.WithoutCancel(ctx), s.r.env.RunID); rerr != nil {
		err = errors.Join(err, rerr)
	}
	s.r.mu.Lock()
	sum := s.r.summary[key]
	s.r.mu.Unlock()
	if sum == nil {
		sum = &StageSummary{Key: key, Status: "failed"}
	}
	return sum, err
}
