package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"mascot.dev/mascot/schema"
)

// Preflight checks, as Execute does before it writes anything, that this
// machine can run every stage the run would execute here; Sweep checks
// every variant with it before it records the parent run. Options.Store
// may be nil (no database yet: nothing is done), so a command can check
// before it creates the database.
func Preflight(ctx context.Context, opts Options) error {
	r, err := newRun(ctx, opts)
	if err != nil {
		return err
	}
	return r.preflight(ctx)
}

// EndpointChecker is implemented by an Engine that can tell, without
// starting anything, whether it can serve a builtin endpoint (its
// model_dir holds a model, its model is in the local cache).
type EndpointChecker interface {
	CheckEndpoint(name string, ep schema.Endpoint) error
}

// preflight finds, before anything is written, what would make the run
// fail after doing work: for every stage this run would execute here
// (wanted, not handed to a remote executor; a shard's own stage runs
// here) its kind's Preflight (device, files, plugins) and the datasets it
// reads; for the run, the API key variables and builtin endpoints every
// run starts with. A stage whose units are all done already is let
// through: it will not run. The problems come back as positioned schema
// errors (exit 2).
func (r *run) preflight(ctx context.Context) error {
	env := r.checkEnv()
	exp := r.opts.Loaded.Experiment
	failed := map[string]schema.Errors{}
	for _, key := range r.order {
		if !r.want[key] {
			continue
		}
		if ex := r.executorName(key); ex != "" && ex != "local" && !r.inShard(key) {
			continue
		}
		failed[key] = append(failed[key], r.stageProblems(env, key)...)
		if len(failed[key]) == 0 {
			delete(failed, key)
		}
	}
	if len(failed) > 0 && r.opts.Store != nil {
		for key := range r.completeStages(ctx) {
			delete(failed, key)
		}
	}
	var errs schema.Errors
	seen := map[string]bool{}
	add := func(e schema.Error) {
		if k := e.Path + "\x00" + e.Msg; !seen[k] {
			seen[k] = true
			errs = append(errs, e)
		}
	}
	for _, key := range r.order {
		for _, e := range failed[key] {
			add(e)
		}
	}
	for _, e := range r.runProblems(env, exp) {
		add(e)
	}
	if len(errs) == 0 {
		return nil
	}
	return errs
}

// checkEnv is the environment preflights see: the experiment, where its
// paths are read and the plugin starter; no store, no run.
func (r *run) checkEnv() *Env {
	return &Env{Exp: r.opts.Loaded.Experiment, Log: r.opts.Log, Out: io.Discard, Files: r.files(),
		Plugins: r.opts.Services.Plugins}
}

// stageProblems are the preflight problems of stage key: its kind's, and
// every dataset it reads that cannot be found.
func (r *run) stageProblems(env *Env, key string) schema.Errors {
	exp := r.opts.Loaded.Experiment
	st := exp.Stages[key]
	var errs schema.Errors
	if k := r.kinds[key]; k.Preflight != nil {
		for _, p := range k.Preflight(env, st) {
			errs = append(errs, r.positioned(p))
		}
	}
	for _, name := range stageDatasets(exp, st) {
		if err := checkDataset(env, name); err != nil {
			field := []string{"datasets", name, "path"}
			if exp.Datasets[name].Path == "" {
				field = field[:2]
			}
			errs = append(errs, r.positioned(Problem{Path: field, Err: err}))
		}
	}
	return errs
}

// runProblems are what every run starts with: the key variables of the
// endpoints its client configures, and the builtin endpoints' models.
func (r *run) runProblems(env *Env, exp *schema.Experiment) schema.Errors {
	var errs schema.Errors
	for _, name := range sortedKeys(exp.Endpoints) {
		ep := exp.Endpoints[name]
		if ep.Kind == "builtin" {
			errs = append(errs, r.builtinProblems(env, name, ep)...)
			continue
		}
		if v := ep.APIKeyEnv; v != "" && os.Getenv(v) == "" {
			errs = append(errs, r.positioned(Problem{Path: []string{"endpoints", name, "api_key_env"},
				Err: fmt.Errorf("environment variable %s is unset or empty (it holds endpoint %s's API key)", v, name)}))
		}
	}
	return errs
}

// builtinProblems checks that this build can serve builtin endpoint name.
func (r *run) builtinProblems(env *Env, name string, ep schema.Endpoint) schema.Errors {
	eng := r.opts.Services.Engine
	if eng == nil {
		return schema.Errors{r.positioned(Problem{Path: []string{"endpoints", name, "kind"},
			Err: errors.New("this build has no built-in engine")})}
	}
	c, ok := eng.(EndpointChecker)
	if !ok {
		return nil
	}
	field := "model"
	if ep.ModelDir != "" {
		field = "model_dir"
		ep.ModelDir = env.LocalPath(ep.ModelDir)
	}
	if err := c.CheckEndpoint(name, ep); err != nil {
		return schema.Errors{r.positioned(Problem{Path: []string{"endpoints", name, field}, Err: err})}
	}
	return nil
}

// positioned turns a problem into an error at the field the user wrote.
func (r *run) positioned(p Problem) schema.Error {
	return schema.Error{Path: strings.Join(p.Path, "."), Msg: p.Err.Error(), Positions: r.opts.Loaded.Positions(p.Path...)}
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

// preflightPrefix begins Plan's note for a stage that could not run here.
const preflightPrefix = "cannot run here: "

// preflightNote is Plan's note for a stage that could not run here.
func (r *run) preflightNote(key string) string {
	if ex := r.executorName(key); ex != "" && ex != "local" {
		return ""
	}
	if errs := r.stageProblems(r.checkEnv(), key); len(errs) > 0 {
		return preflightPrefix + firstLine(errs[0].Msg)
	}
	return ""
}
