package runner

import (
	"context"
	"fmt"
	"path/filepath"

	"mascot.dev/mascot/results/report"
)

// Session is a finished run brought back for interactive use (mascot chat,
// the viewer's chat page): its config, its endpoints (built-in engines
// started, trained models loaded) and the outputs of its finished stages,
// read from the store. Nothing is executed and nothing is written by
// opening it; closing it stores the run's report if its data changed.
type Session struct {
	r *run
}

// OpenSession restores run runID, whose resolved config is opts.Loaded.
// The stages the run finished publish their outputs (units and artifacts)
// as they did in the run, so a stage built with Stage sees its trained
// adapters. Close stops the endpoints it started.
func OpenSession(ctx context.Context, opts Options, runID string) (*Session, error) {
	r, err := newRun(ctx, opts)
	if err != nil {
		return nil, err
	}
	if r.opts.Store == nil {
		return nil, fmt.Errorf("opening run %s: no results store", runID)
	}
	stages, err := r.opts.Store.Stages(ctx, runID)
	if err != nil {
		return nil, fmt.Errorf("opening run %s: %w", runID, err)
	}
	r.env = &Env{Store: r.opts.Store, RunID: runID, RunDir: filepath.Join(r.opts.RunsDir, runID),
		Exp: r.opts.Loaded.Experiment, Log: r.opts.Log, Strict: r.opts.Strict, Out: r.opts.Out, Files: r.files()}
	for _, st := range stages {
		if st.Status != "done" {
			continue
		}
		if _, ok := r.kinds[st.Key]; !ok {
			continue // a stage outside the config (chat)
		}
		fps, err := r.opts.Store.StageUnits(ctx, runID, []string{st.Key})
		if err != nil {
			return nil, fmt.Errorf("opening run %s: %w", runID, err)
		}
		if err := r.publish(ctx, st.Key, fps); err != nil {
			return nil, fmt.Errorf("opening run %s: %w", runID, err)
		}
	}
	if err := r.startServices(ctx); err != nil {
		return nil, fmt.Errorf("opening run %s: %w", runID, errJoin(err, r.env.close()))
	}
	return &Session{r: r}, nil
}

// Env is what the session's stages see.
func (s *Session) Env() *Env { return s.r.env }

// Stage configures stage key of the run against the restored outputs,
// loading first the models its builtin endpoints serve.
func (s *Session) Stage(ctx context.Context, key string) (Stage, error) {
	k, ok := s.r.kinds[key]
	if !ok {
		return nil, fmt.Errorf("stage %q is not in the run's config", key)
	}
	if err := s.r.prepareEndpoints(ctx, key); err != nil {
		return nil, fmt.Errorf("preparing endpoints of stage %s: %w", key, err)
	}
	st, err := k.New(s.r.env, s.r.opts.Loaded.Experiment.Stages[key])
	if err != nil {
		return nil, fmt.Errorf("configuring stage %s: %w", key, err)
	}
	return st, nil
}

// Seed is the stage's seed, as the run derived it.
func (s *Session) Seed(key string) int64 { return s.r.env.Seed(key) }

// Close stops the session's endpoints and stores the run's report again
// if what the session wrote (conversations, judgments) changed its data,
// as the run did when it ended: the next report and report page are then
// served at once. Storing it only costs speed if it fails.
func (s *Session) Close() error {
	err := s.r.env.close()
	if werr := report.Warm(context.Background(), s.r.opts.Store, s.r.env.RunID); werr != nil {
		s.r.opts.Log.Warn("storing the report of the reopened run", "err", werr)
	}
	return err
}

func errJoin(err, cerr error) error {
	if cerr == nil {
		return err
	}
	return fmt.Errorf("%w (closing: %v)", err, cerr)
}
