package runner

import (
	"context"
	"io"

	"mascot.dev/mascot/schema"
)

// Preflight checks, as Execute does before it writes anything, that this
// machine can run every stage the run would execute here; Sweep checks
// every variant with it before it records the parent run.
func Preflight(ctx context.Context, opts Options) error {
	r, err := newRun(ctx, opts)
	if err != nil {
		return err
	}
	return r.preflight(ctx)
}

// preflight runs the Kind.Preflight of every stage this run would execute
// here (wanted, not handed to a remote executor; a shard's own stage runs
// here), before anything is written. A stage whose units are all done
// already is let through: it will not run. The failures come back as
// positioned schema errors.
func (r *run) preflight(ctx context.Context) error {
	exp := r.opts.Loaded.Experiment
	failed := map[string]schema.Error{}
	for _, key := range r.order {
		k := r.kinds[key]
		if k.Preflight == nil || !r.want[key] {
			continue
		}
		if ex := r.executorName(key); ex != "" && ex != "local" && !r.inShard(key) {
			continue
		}
		field, err := k.Preflight(exp.Stages[key])
		if err == nil {
			continue
		}
		path := []string{"stages", key}
		shown := "stages." + key
		if field != "" {
			path, shown = append(path, field), shown+"."+field
		}
		failed[key] = schema.Error{Path: shown, Msg: err.Error(), Positions: r.opts.Loaded.Positions(path...)}
	}
	if len(failed) == 0 {
		return nil
	}
	for key := range r.completeStages(ctx) {
		delete(failed, key)
	}
	var errs schema.Errors
	for _, key := range r.order {
		if e, ok := failed[key]; ok {
			errs = append(errs, e)
		}
	}
	if len(errs) == 0 {
		return nil
	}
	return errs
}

// completeStages are the stages whose every unit is done in the store, as
// Plan counts them (a read-only pass over a throwaway environment).
func (r *run) completeStages(ctx context.Context) map[string]bool {
	saved := r.env
	defer func() { r.env = saved }()
	r.env = &Env{Store: r.opts.Store, Exp: r.opts.Loaded.Experiment, Log: r.opts.Log, Out: io.Discard, Files: r.files()}
	done := map[string]bool{}
	for _, key := range r.order {
		if units, n, _ := r.countUnits(ctx, key); units >= 0 && n == units {
			done[key] = true
		}
	}
	return done
}

// preflightNote is Plan's note for a stage that could not run here.
func (r *run) preflightNote(key string) string {
	k := r.kinds[key]
	if k.Preflight == nil {
		return ""
	}
	if ex := r.executorName(key); ex != "" && ex != "local" {
		return ""
	}
	if _, err := k.Preflight(r.opts.Loaded.Experiment.Stages[key]); err != nil {
		return "cannot run here: " + firstLine(err.Error())
	}
	return ""
}
