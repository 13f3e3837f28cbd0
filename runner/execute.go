package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"mascot.dev/mascot/internal/buildinfo"
	"mascot.dev/mascot/internal/gcpace"
	"mascot.dev/mascot/results"
	"mascot.dev/mascot/results/report"
	"mascot.dev/mascot/schema"
)

// Options configure one run.
type Options struct {
	Loaded   *schema.Loaded
	Registry *Registry
	Store    *results.Store
	// RunsDir holds one directory per run (run_config.json,
	// run_summary.json, adapters, logs); default "runs".
	RunsDir string
	// Only runs just this stage (its inputs must be complete).
	Only string
	// From runs this stage and everything downstream of it.
	From   string
	Strict bool
	// Progress receives progress lines; nil discards them.
	Progress io.Writer
	// Out receives report tables; nil means os.Stdout.
	Out io.Writer
	Log *slog.Logger
	// Services builds the run's LLM client and plugin commands.
	Services Services
	// Shard, when set, makes the run a remote worker's share of one
	// stage's units (see Shard).
	Shard *Shard
	// Slice, when set, runs only the first evaluation contexts of some
	// stages (a racing sweep's rounds).
	Slice *Slice
	// ParentID and Axes mark a sweep child.
	ParentID string
	Axes     json.RawMessage
	Command  string
	// RunID, when set, is the id the run is recorded under (a replay
	// recreates the run it replays); by default a new one.
	RunID string
	// ConfigName, when set, is the config name recorded for the run
	// instead of Loaded.Name.
	ConfigName string
	// Files maps paths the config names (datasets, pretraining text) to
	// the local files to read instead (a replay's unpacked data).
	Files map[string]string
	// BeforePublish, when set, is called once a stage this run executed
	// has finished, with its units, before downstream stages see its
	// output (a replay checks the stage there, and may put the replayed
	// run's own artifacts in place of those it retrained).
	BeforePublish func(ctx context.Context, key string, units []string) error
}

// StageOrder is the order stages of exp run in: every stage after the
// stages it reads from.
func StageOrder(exp *schema.Experiment) ([]string, error) {
	return topoOrder(schema.Dependencies(exp))
}

// StageSummary is one stage's outcome.
type StageSummary struct {
	Key         string           `json:"key"`
	Kind        string           `json:"kind"`
	Fingerprint string           `json:"fingerprint"`
	Status      string           `json:"status"` // done | failed | skipped
	Units       int              `json:"units"`
	Ran         int              `json:"ran"`
	Cached      int              `json:"cached"`
	Failed      int              `json:"failed"`
	Counters    map[string]int64 `json:"counters,omitempty"`
	Error       string           `json:"error,omitempty"`
	Seconds     float64          `json:"seconds"`
	// ContextsTotal is, for a stage a Slice cuts, how many evaluation
	// contexts it has in full.
	ContextsTotal int `json:"contexts_total,omitempty"`
	// Heldout is a training stage's held-out evaluation (reward models:
	// accuracy and loss on held-out pairs; GRPO: reward before and after
	// on held-out prompts with the 95% CI of the difference).
	Heldout *results.Heldout `json:"heldout,omitempty"`
}

// Summary is a run's outcome, also written as run_summary.json.
type Summary struct {
	RunID    string           `json:"run_id"`
	Name     string           `json:"name"`
	Status   string           `json:"status"`
	RunDir   string           `json:"run_dir"`
	Database string           `json:"database"`
	Started  time.Time        `json:"started_at"`
	Seconds  float64          `json:"seconds"`
	Ran      int              `json:"units_ran"`
	Cached   int              `json:"units_cached"`
	Failed   int              `json:"units_failed"`
	Counters map[string]int64 `json:"counters"`
	Stages   []StageSummary   `json:"stages"`
	// Code is the mascot that ran it (module version, VCS revision, dirty
	// flag), as in run_config.json and the runs table.
	Code buildinfo.Info `json:"code"`
}

// ErrStageFailed is returned (wrapped) when a stage ended with failures in
// strict mode or could not run at all.
var ErrStageFailed = errors.New("stage failed")

// Execute runs an experiment to completion, resuming whatever an earlier
// run of the same config left undone.
func Execute(ctx context.Context, opts Options) (*Summary, error) {
	// A run allocates a fast stream of short-lived values over a small live
	// heap: the collector gets room (gcpace).
	defer gcpace.Raise(100)()
	r, err := newRun(ctx, opts)
	if err != nil {
		return nil, err
	}
	return r.execute(ctx)
}

type run struct {
	opts   Options
	env    *Env
	stages map[string]Stage
	kinds  map[string]Kind
	fps    map[string]string
	deps   map[string][]string
	order  []string
	want   map[string]bool
	prog   *progress

	mu      sync.Mutex
	summary map[string]*StageSummary

	engineMu sync.Mutex
	loaded   map[string]string       // builtin endpoint -> model dir served
	servers  map[string]EngineServer // builtin endpoint -> this run's server handle

	cache *storeCache // the LLM response cache (nil before startServices)
}

func newRun(ctx context.Context, opts Options) (*run, error) {
	exp := opts.Loaded.Experiment
	if opts.Registry == nil {
		opts.Registry = Default
	}
	if opts.RunsDir == "" {
		opts.RunsDir = "runs"
	}
	if opts.Log == nil {
		opts.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if opts.Out == nil {
		opts.Out = os.Stdout
	}
	if err := scopeShard(&opts); err != nil {
		return nil, err
	}
	deps := schema.Dependencies(exp)
	order, err := topoOrder(deps)
	if err != nil {
		return nil, err
	}
	r := &run{opts: opts, deps: deps, order: order, fps: map[string]string{},
		kinds: map[string]Kind{}, stages: map[string]Stage{}, summary: map[string]*StageSummary{},
		loaded: map[string]string{}, servers: map[string]EngineServer{}}
	for _, key := range order {
		st := exp.Stages[key]
		k, ok := opts.Registry.Lookup(st.Kind)
		if !ok {
			return nil, fmt.Errorf("stage %s: kind %q is not available in this build (registered: %s)",
				key, st.Kind, strings.Join(opts.Registry.Names(), ", "))
		}
		up := map[string]string{}
		for _, d := range deps[key] {
			up[d] = r.fps[d]
		}
		fp, err := stageFingerprint(k, st, exp, up)
		if err != nil {
			return nil, fmt.Errorf("fingerprinting stage %s: %w", key, err)
		}
		r.kinds[key], r.fps[key] = k, fp
	}
	if r.want, err = selectStages(order, deps, opts.Only, opts.From); err != nil {
		return nil, err
	}
	return r, nil
}

// files is the run's Env.Files: where the spec's relative paths are read
// (schema.Loaded.LocalPaths), with a replay's unpacked files (Options.Files)
// over them.
func (r *run) files() map[string]string {
	m := r.opts.Loaded.LocalPaths()
	for p, q := range r.opts.Files {
		m[p] = q
	}
	return m
}

func (r *run) execute(ctx context.Context) (*Summary, error) {
	exp := r.opts.Loaded.Experiment
	if err := r.preflight(ctx); err != nil {
		return nil, err
	}
	runID := r.opts.RunID
	if runID == "" {
		runID = results.NewRunID()
	}
	configName := r.opts.Loaded.Name
	if r.opts.ConfigName != "" {
		configName = r.opts.ConfigName
	}
	runDir := filepath.Join(r.opts.RunsDir, runID)
	if err := os.MkdirAll(runDir, 0o755); err != nil {
		return nil, fmt.Errorf("creating run directory: %w", err)
	}
	code := buildinfo.Read()
	cfg, err := runConfigJSON(r.opts.Loaded.Canonical, code, r.opts.Loaded.LocalPaths())
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(runDir, "run_config.json"), cfg, 0o644); err != nil {
		return nil, fmt.Errorf("writing run_config.json: %w", err)
	}
	codeJSON, _ := json.Marshal(code)
	r.reportInvalidation(ctx)
	started := time.Now()
	if err := r.opts.Store.CreateRun(ctx, results.Owned(results.Run{ID: runID, Name: exp.Name, ParentID: r.opts.ParentID,
		ConfigName: configName, ConfigJSON: r.opts.Loaded.Canonical, AxesJSON: r.opts.Axes,
		Command: r.opts.Command, Status: results.RunRunning, StartedAt: started, Code: codeJSON})); err != nil {
		return nil, fmt.Errorf("recording run: %w", err)
	}
	stopBeat := heartbeat(ctx, r.opts.Store, runID, r.opts.Log)
	defer stopBeat()
	// Disk space kept so that the run's end is recorded even when the
	// disk fills during the run (FinishRun frees it then). Writing it is
	// synced, so it is written while the run starts rather than before its
	// first request; the run waits for it before FinishRun.
	var release func()
	reserved := make(chan struct{})
	go func() { release = r.opts.Store.Reserve(); close(reserved) }()
	defer func() { <-reserved; release() }()
	envDir := runDir
	if d := r.shardRunDir(); d != "" {
		envDir = d // a stage-exec shard writes files where the controller's run lives
	}
	r.env = &Env{Store: r.opts.Store, RunID: runID, RunDir: envDir, Exp: exp, Log: r.opts.Log,
		Strict: r.opts.Strict, Out: r.opts.Out, Files: r.files()}
	r.prog = newProgress(r.opts.Progress)
	r.env.status = r.prog.status
	r.env.Out = r.prog.above(r.env.Out)
	runErr := r.startServices(ctx)
	if runErr == nil {
		runErr = r.schedule(ctx)
	}
	r.prog.stop()
	if err := r.opts.Store.ReleaseClaims(context.WithoutCancel(ctx), runID); err != nil && runErr == nil {
		runErr = err
	}
	if err := r.env.close(); err != nil && runErr == nil {
		runErr = fmt.Errorf("closing services: %w", err)
	}
	status := results.RunDone
	switch {
	case ctx.Err() != nil:
		status = results.RunInterrupted
	case runErr != nil:
		status = results.RunFailed
	}
	sum := r.buildSummary(runID, runDir, status, started)
	sb, _ := json.MarshalIndent(sum, "", "  ")
	_ = writeJSON(filepath.Join(runDir, "run_summary.json"), json.RawMessage(sb))
	<-reserved
	if err := r.opts.Store.FinishRun(context.WithoutCancel(ctx), runID, status, string(sb)); err != nil {
		// Said even after a stage failed: the run's status is not stored
		// (a full disk), so it will read as interrupted.
		runErr = errors.Join(runErr, fmt.Errorf("recording the end of run %s (%s): %w", runID, status, err))
	}
	if status == results.RunDone && runErr == nil && r.shardRunDir() == "" {
		// The report and the viewer then serve the run's tables at once; a
		// failure only costs the first report its speed.
		if err := report.Warm(ctx, r.opts.Store, runID); err != nil {
			r.opts.Log.Warn("warming the report cache", "err", err)
		}
	}
	return sum, runErr
}

// schedule runs each wanted stage once its dependencies are complete.
func (r *run) schedule(ctx context.Context) error {
	exp := r.opts.Loaded.Experiment
	g, gctx := errgroup.WithContext(ctx)
	stageSem := make(chan struct{}, max(1, exp.Executor.MaxParallelStages))
	deviceSem := make(chan struct{}, max(1, exp.Executor.DeviceSlots))
	done := map[string]chan struct{}{}
	failed := sync.Map{}
	for _, k := range r.order {
		done[k] = make(chan struct{})
	}
	needed := r.needed()
	for _, key := range r.order {
		key := key
		if !needed[key] {
			close(done[key]) // neither selected nor an input of a selected stage
			continue
		}
		g.Go(func() error {
			defer close(done[key])
			for _, d := range r.deps[key] {
				select {
				case <-done[d]:
				case <-gctx.Done():
					return nil
				}
				if _, bad := failed.Load(d); bad {
					failed.Store(key, errSkipped)
					msg := "input stage " + d + " did not complete"
					r.record(key, &StageSummary{Key: key, Kind: r.kinds[key].Name, Status: "skipped",
						Fingerprint: r.fps[key], Error: msg})
					// Stored too, so results show and the viewer list it.
					if err := r.opts.Store.UpsertStage(context.WithoutCancel(ctx), results.Stage{RunID: r.env.RunID,
						Key: key, Kind: r.kinds[key].Name, Fingerprint: r.fps[key], Status: "skipped", Error: msg,
						FinishedAt: time.Now()}); err != nil {
						r.opts.Log.Warn("recording a skipped stage", "stage", key, "err", err)
					}
					return nil
				}
			}
			select {
			case stageSem <- struct{}{}:
			case <-gctx.Done():
				return nil
			}
			defer func() { <-stageSem }()
			if r.opts.Loaded.Experiment.Kinds.IsTraining(r.kinds[key].Name) && r.want[key] {
				select {
				case deviceSem <- struct{}{}:
				case <-gctx.Done():
					return nil
				}
				defer func() { <-deviceSem }()
			}
			if err := r.runStage(gctx, key); err != nil {
				failed.Store(key, err)
				if r.opts.Strict || errors.Is(err, context.Canceled) {
					return err
				}
				// The whole error (a dataset's looked-in list) ends the run.
				r.opts.Log.Error("stage failed", "stage", key, "err", firstLine(err.Error()))
			}
			return nil
		})
	}
	err := g.Wait()
	if err == nil && ctx.Err() != nil {
		err = ctx.Err()
	}
	if err == nil {
		bad := map[string]error{}
		failed.Range(func(k, v any) bool { bad[k.(string)] = v.(error); return true })
		if len(bad) > 0 {
			return stageFailures(r.order, bad)
		}
	}
	return err
}

func (r *run) record(key string, s *StageSummary) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.summary[key] = s
}

func (r *run) buildSummary(runID, runDir, status string, started time.Time) *Summary {
	sum := &Summary{RunID: runID, Name: r.opts.Loaded.Experiment.Name, Status: status, RunDir: runDir,
		Database: r.opts.Store.Path(), Started: started, Seconds: time.Since(started).Seconds(),
		Counters: map[string]int64{}, Code: buildinfo.Read()}
	held, err := r.opts.Store.Heldout(context.Background(), runID)
	if err != nil {
		r.opts.Log.Error("reading the run's held-out evaluations", "err", err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, key := range r.order {
		s, ok := r.summary[key]
		if !ok {
			continue
		}
		st := *s
		st.Heldout = held[key]
		sum.Stages = append(sum.Stages, st)
		sum.Ran += s.Ran
		sum.Cached += s.Cached
		sum.Failed += s.Failed
	}
	// Run-level counters come from the database (latency percentiles are
	// over the whole run, not sums of the stages').
	c, err := r.opts.Store.RunCounters(context.Background(), runID)
	if err != nil {
		r.opts.Log.Error("reading the run's counters", "err", err)
	}
	sum.Counters = fillRoleCounters(c)
	return sum
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding %s: %w", filepath.Base(path), err)
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// needed is the set of selected stages and every stage they read from,
// transitively; with --only or --from the rest of the graph is left alone.
func (r *run) needed() map[string]bool {
	need := map[string]bool{}
	var visit func(string)
	visit = func(k string) {
		if need[k] {
			return
		}
		need[k] = true
		for _, d := range r.deps[k] {
			visit(d)
		}
	}
	for k, w := range r.want {
		if w {
			visit(k)
		}
	}
	return need
}

// heartbeat refreshes run id's heartbeat until the returned stop is
// called, so readers can tell this run from one whose process died.
func heartbeat(ctx context.Context, s *results.Store, id string, log *slog.Logger) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(results.HeartbeatEvery)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				if err := s.Heartbeat(context.WithoutCancel(ctx), id); err != nil {
					log.Warn("heartbeat", "err", err)
				}
			}
		}
	}()
	return func() { close(done); wg.Wait() }
}
