package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"log/slog"
	"sync"

	"mascot.dev/mascot/results"
	"mascot.dev/mascot/schema"
)

// Executor runs a stage's pending units somewhere other than this
// process (a Slurm cluster). The runner keeps the stage graph, fingerprints
// and the results store; the executor only has to get the listed units
// done in Job.Store (normally by ingesting what remote jobs wrote) and say
// how many ran and failed. Units it leaves not done count as failed.
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
	// Slurm is the experiment's slurm options overlaid with the stage's.
	Slurm schema.SlurmOptions
	Log   *slog.Logger
	// Done and Failed advance the stage's progress bar by one unit.
	Done, Failed func()
	// Count adds to the stage's counters in this run (the counters a
	// remote job's stage recorded are copied back through it).
	Count func(name string, n int64)
}

// The local executor is runUnits itself; others register by name.
var (
	executorsMu sync.RWMutex
	executors   = map[string]Executor{}
)

// RegisterExecutor makes an executor available under name ("slurm"),
// replacing any earlier one of that name.
func RegisterExecutor(name string, e Executor) {
	executorsMu.Lock()
	defer executorsMu.Unlock()
	executors[name] = e
}

func lookupExecutor(name string) (Executor, bool) {
	executorsMu.RLock()
	defer executorsMu.RUnlock()
	e, ok := executors[name]
	return e, ok
}

// executorName is the stage's executor, else the experiment's; "" = local.
func (r *run) executorName(key string) string {
	exp := r.opts.Loaded.Experiment
	if name := exp.Stages[key].Executor; name != "" {
		return name
	}
	return exp.Executor.Kind
}

// execUnits runs a stage's pending units with its executor.
func (r *run) execUnits(ctx context.Context, key string, st Stage, pending []Unit, bar *bar) (int, int, error) {
	if sh, ok := ctx.Value(shardKey{}).(*shardSpec); ok && sh.stage == key {
		var mine []Unit
		for _, u := range pending {
			if sh.owns(u.Fingerprint) {
				mine = append(mine, u)
			}
		}
		return r.runUnits(ctx, key, st, mine, bar)
	}
	name := r.executorName(key)
	if name == "" || name == "local" || len(pending) == 0 {
		return r.runUnits(ctx, key, st, pending, bar)
	}
	ex, ok := lookupExecutor(name)
	if !ok {
		err := fmt.Errorf("executor %q is not available in this build", name)
		return 0, len(pending), err
	}
	opts, err := r.slurmOptions(key)
	if err != nil {
		return 0, len(pending), err
	}
	return ex.RunUnits(ctx, &ExecJob{RunID: r.env.RunID, RunDir: r.env.RunDir, StageKey: key, Kind: r.kinds[key].Name, Fingerprint: r.fps[key],
		Store: r.opts.Store, Pending: pending, Slurm: opts, Log: r.opts.Log, Done: bar.inc, Failed: bar.fail,
		Count: func(name string, n int64) { r.env.Count(key, name, n) }})
}

// slurmOptions overlays the stage's slurm block on the experiment's.
func (r *run) slurmOptions(key string) (schema.SlurmOptions, error) {
	var o schema.SlurmOptions
	if base := r.opts.Loaded.Experiment.Executor.Slurm; base != nil {
		o = *base
		o.ExtraArgs = append([]string(nil), base.ExtraArgs...)
	}
	var raw struct {
		Slurm *schema.SlurmOptions `json:"slurm"`
	}
	if err := json.Unmarshal(r.opts.Loaded.Experiment.Stages[key].Raw, &raw); err != nil {
		return o, fmt.Errorf("decoding slurm options of stage %s: %w", key, err)
	}
	if s := raw.Slurm; s != nil {
		setStr := func(dst *string, v string) {
			if v != "" {
				*dst = v
			}
		}
		setInt := func(dst *int, v int) {
			if v != 0 {
				*dst = v
			}
		}
		setStr(&o.Partition, s.Partition)
		setStr(&o.Mem, s.Mem)
		setStr(&o.Time, s.Time)
		setStr(&o.Account, s.Account)
		setStr(&o.QOS, s.QOS)
		setInt(&o.GPUs, s.GPUs)
		setInt(&o.CPUs, s.CPUs)
		setInt(&o.ArrayParallelism, s.ArrayParallelism)
		o.ExtraArgs = append(o.ExtraArgs, s.ExtraArgs...)
	}
	return o, nil
}

type shardKey struct{}

type shardSpec struct {
	stage  string
	fps    map[string]bool
	runDir string
	// part/parts select units by a hash of their fingerprint when fps is
	// nil (a detached job lists its own stage's units).
	part, parts int
}

// owns reports whether the unit with fingerprint fp belongs to the shard.
func (sh *shardSpec) owns(fp string) bool {
	if sh.fps != nil {
		return sh.fps[fp]
	}
	return ShardOf(fp, sh.parts) == sh.part
}

// ShardOf is the shard (0..parts-1) a detached stage job assigns the unit
// with fingerprint fp to; every job of the stage computes the same split.
func ShardOf(fp string, parts int) int {
	if parts <= 1 {
		return 0
	}
	h := fnv.New32a()
	h.Write([]byte(fp))
	return int(h.Sum32() % uint32(parts))
}

// inShard reports whether ctx is a stage-exec shard of stage key; such a
// shard runs units only: the stage's Finish runs on the controller.
func inShard(ctx context.Context, key string) bool {
	sh, ok := ctx.Value(shardKey{}).(*shardSpec)
	return ok && sh.stage == key
}

// shardRunDir is the directory a shard's stage writes files into (the
// controller's run directory, on the shared filesystem), "" outside one.
func shardRunDir(ctx context.Context) string {
	if sh, ok := ctx.Value(shardKey{}).(*shardSpec); ok {
		return sh.runDir
	}
	return ""
}

// ExecShard runs, in this process and against opts.Store (a job's own
// shard database, a copy of the controller's), the units of stage whose
// fingerprints are listed; the stage's upstream stages must be done in the
// store. It is what `mascot stage-exec` runs inside a Slurm job. Listed
// units the stage does not produce are ignored. Files the stage writes
// (adapters, models) go under runDir/<stage>/ when runDir is set (the
// controller's run directory, so the artifact paths ingested into the
// controller's store point at files next to its run); the stage's Finish
// is left to the controller.
func ExecShard(ctx context.Context, opts Options, stage string, fingerprints []string, runDir string) (*Summary, error) {
	if _, ok := opts.Loaded.Experiment.Stages[stage]; !ok {
		return nil, fmt.Errorf("stage %q is not in the experiment", stage)
	}
	sh := &shardSpec{stage: stage, fps: map[string]bool{}, runDir: runDir}
	for _, fp := range fingerprints {
		sh.fps[fp] = true
	}
	opts.Only, opts.From = stage, ""
	return Execute(context.WithValue(ctx, shardKey{}, sh), opts)
}

// ExecShardPart is ExecShard for a detached job, which cannot be told its
// units in advance: it lists the stage's pending units itself and runs
// those whose ShardOf(fingerprint, parts) is part.
func ExecShardPart(ctx context.Context, opts Options, stage string, part, parts int, runDir string) (*Summary, error) {
	if _, ok := opts.Loaded.Experiment.Stages[stage]; !ok {
		return nil, fmt.Errorf("stage %q is not in the experiment", stage)
	}
	sh := &shardSpec{stage: stage, runDir: runDir, part: part, parts: max(1, parts)}
	opts.Only, opts.From = stage, ""
	return Execute(context.WithValue(ctx, shardKey{}, sh), opts)
}

// GraphStage is one stage of an experiment as a detached submission
// needs it: its parents, fingerprint, executor and Slurm options.
type GraphStage struct {
	Key         string
	Kind        string
	Fingerprint string
	Deps        []string
	Executor    string // "" or "local" = not a remote executor
	Slurm       schema.SlurmOptions
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
		o, err := r.slurmOptions(key)
		if err != nil {
			return nil, err
		}
		out = append(out, GraphStage{Key: key, Kind: r.kinds[key].Name, Fingerprint: r.fps[key],
			Deps: append([]string(nil), r.deps[key]...), Executor: r.executorName(key), Slurm: o})
	}
	return out, nil
}
