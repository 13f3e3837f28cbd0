package runner

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"mascot.dev/mascot/results"
	"mascot.dev/mascot/schema"
)

// Executor runs a stage's pending units somewhere other than this
// process (runner/slurm runs them as Slurm jobs). The runner keeps the
// stage graph, fingerprints and the results store; the executor only has
// to get the listed units done in Job.Store (normally by ingesting what
// remote workers wrote, each a shard run: Options.Shard) and say how many
// ran and failed. Units it leaves not done count as failed.
//
// The runner knows executors only through this interface: the caller
// wires them by name in Services.Executors, and a stage uses the one its
// experiment names (the stage's executor, else executor.kind); "" and
// "local" run the units in this process.
type Executor interface {
	RunUnits(ctx context.Context, job *ExecJob) (ran, failed int, firstErr error)
}

// ExecJob is one stage's pending units handed to an Executor.
type ExecJob struct {
	RunID    string
	RunDir   string // the run's directory (run_config.json is in it)
	StageKey string
	Kind     string
	// Fingerprint is the stage's; executors key their state by it so a
	// restarted controller (a new run) finds the jobs of the old one.
	Fingerprint string
	Store       *results.Store
	Pending     []Unit
	// Experiment is the run's experiment. An executor reads its own
	// settings from it (its block under executor, the stage's config in
	// Experiment.Stages[StageKey].Raw); the runner does not interpret them.
	Experiment *schema.Experiment
	Log        *slog.Logger
	// Done and Failed advance the stage's progress bar by one unit.
	Done, Failed func()
	// Count adds to the stage's counters in this run (the counters a
	// remote job's stage recorded are copied back through it).
	Count func(name string, n int64)
}

// executorName is the stage's executor, else the experiment's; "" = local.
func (r *run) executorName(key string) string {
	exp := r.opts.Loaded.Experiment
	if name := exp.Stages[key].Executor; name != "" {
		return name
	}
	return exp.Executor.Kind
}

// execUnits plans a stage's units and runs the pending ones with its
// executor. Locally (and in a shard run, the shard's share) the units of
// each planned chunk start while the next chunks are planned; a remote
// executor gets the whole pending list once everything is planned.
// A planning error is left in plan.err.
func (r *run) execUnits(ctx context.Context, key string, st Stage, plan *unitPlan, began time.Time) (int, int, error) {
	name := r.executorName(key)
	if !r.inShard(key) && name != "" && name != "local" {
		pending, err := plan.all(ctx, began)
		if plan.err = err; err != nil || len(pending) == 0 {
			return 0, 0, nil
		}
		ex, ok := r.opts.Services.Executors[name]
		if !ok || ex == nil {
			err := fmt.Errorf("executor %q is not available in this build", name)
			return 0, len(pending), err
		}
		return ex.RunUnits(ctx, &ExecJob{RunID: r.env.RunID, RunDir: r.env.RunDir, StageKey: key, Kind: r.kinds[key].Name,
			Fingerprint: r.fps[key], Store: r.opts.Store, Pending: pending, Experiment: r.opts.Loaded.Experiment,
			Log: r.opts.Log, Done: plan.bar.inc, Failed: plan.bar.fail,
			Count: func(name string, n int64) { r.env.Count(key, name, n) }})
	}
	mine := func(us []Unit) []Unit { return us }
	if r.inShard(key) {
		mine = r.opts.Shard.owner()
	}
	chunks := make(chan planChunk, plan.chunks()) // the planning never waits for the workers
	go func() {
		defer close(chunks)
		plan.err = plan.plan(ctx, began, func(c planChunk) {
			c.pending = mine(c.pending)
			plan.holding(ctx, &c) // only the units this process runs
			chunks <- c
		})
	}()
	return r.runUnits(ctx, key, st, chunks, plan.bar)
}

// GraphStage is one stage of an experiment as a submission of the whole
// graph (runner/slurm's detached mode) needs it: its parents, fingerprint
// and executor.
type GraphStage struct {
	Key         string
	Kind        string
	Fingerprint string
	Deps        []string
	Executor    string // "" or "local" = not a remote executor
}

// Graph returns the experiment's stages in topological order (parents
// first), restricted to the stages opts.Only / opts.From select and their
// inputs.
func Graph(ctx context.Context, opts Options) ([]GraphStage, error) {
	r, err := newRun(ctx, opts)
	if err != nil {
		return nil, err
	}
	need := r.needed()
	var out []GraphStage
	for _, key := range r.order {
		if !need[key] {
			continue
		}
		out = append(out, GraphStage{Key: key, Kind: r.kinds[key].Name, Fingerprint: r.fps[key],
			Deps: append([]string(nil), r.deps[key]...), Executor: r.executorName(key)})
	}
	return out, nil
}
