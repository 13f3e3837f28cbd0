package slurm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"mascot.dev/mascot/internal/safepath"
	"mascot.dev/mascot/results"
	"mascot.dev/mascot/runner"
)

// Executor runs stages' units as Slurm jobs (a runner.Executor) and the
// server jobs of slurm-server endpoints (a runner.ServerStarter); the CLI
// wires one into runner.Services under the name "slurm". The zero value is
// usable: it runs the Slurm commands from PATH, the mascot binary it is
// part of, and polls every 5 seconds.
type Executor struct {
	CLI CLI
	// Binary is the mascot binary jobs run; default os.Executable().
	Binary string
	// Poll is the status polling interval; default 5s.
	Poll time.Duration
	// EndSettle is how long a task must keep reading as ended without
	// success (on two polls at least) before it counts as failed; default
	// 30s. A task being requeued reads as ended, its first run's exit code
	// written, until Slurm lists it PENDING again: on a busy controller
	// that outlasted 5 s, and a task that really failed costs the wait once.
	EndSettle time.Duration
	// MaxShards bounds the array size of one stage; default 16.
	MaxShards int
	// Dir is the shared state root; default <runs dir>/slurm, next to
	// the run directories.
	Dir string

	// Submits counts sbatch calls (tests check re-attaching submits none).
	Submits atomic.Int64

	mu     sync.Mutex
	polled time.Time
	queue  map[string]Job
}

func (e *Executor) poll() time.Duration {
	if e.Poll > 0 {
		return e.Poll
	}
	return 5 * time.Second
}

func (e *Executor) endSettle() time.Duration {
	if e.EndSettle > 0 {
		return e.EndSettle
	}
	return 30 * time.Second
}

// RunUnits implements runner.Executor: it re-attaches to attempts a
// previous controller left unfinished, submits the units still not done as
// a new attempt, waits, ingests, and marks units no shard produced failed.
func (e *Executor) RunUnits(ctx context.Context, job *runner.ExecJob) (int, int, error) {
	log := job.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if err := safepath.Element(job.StageKey); err != nil {
		return 0, len(job.Pending), fmt.Errorf("choosing the Slurm directory of stage %q: %w", job.StageKey, err)
	}
	stageDir := e.stageDir(job)
	attempts, err := loadAttempts(stageDir)
	if err != nil {
		return 0, len(job.Pending), err
	}
	want := map[string]bool{}
	fps := make([]string, len(job.Pending))
	for i, u := range job.Pending {
		want[u.Fingerprint], fps[i] = true, u.Fingerprint
	}
	ran := 0
	var firstErr error
	errs := map[string]string{} // unit -> why it is not done
	collect := func(a *Attempt) error {
		n, shardErrs, err := e.finish(ctx, job, a, want, log)
		ran += n
		for i, msg := range shardErrs {
			if firstErr == nil {
				firstErr = fmt.Errorf("slurm job %s %s", a.TaskID(i), msg)
			}
			for _, fp := range a.Shards[i] {
				errs[fp] = "slurm job " + a.TaskID(i) + " " + msg
			}
		}
		return err
	}
	for _, a := range attempts {
		if a.Ingested {
			continue
		}
		log.Info("re-attaching to slurm job", "stage", job.StageKey, "job", a.JobID, "attempt", a.N)
		if err := collect(a); err != nil {
			return ran, len(job.Pending) - ran, err
		}
	}
	done, err := job.Store.DoneUnits(ctx, fps)
	if err != nil {
		return ran, len(fps) - ran, err
	}
	var rest []string
	for _, fp := range fps {
		if !done[fp] {
			rest = append(rest, fp)
		}
	}
	if len(rest) > 0 {
		a, err := e.submit(ctx, job, stageDir, len(attempts)+1, rest)
		if err != nil {
			return ran, len(rest), fmt.Errorf("submitting stage %s to slurm: %w", job.StageKey, err)
		}
		log.Info("submitted slurm job", "stage", job.StageKey, "job", a.JobID, "shards", len(a.Shards))
		if err := collect(a); err != nil {
			return ran, len(job.Pending) - ran, err
		}
	}
	done, err = job.Store.DoneUnits(ctx, fps)
	if err != nil {
		return ran, len(fps) - ran, err
	}
	failed := 0
	for _, u := range job.Pending {
		if done[u.Fingerprint] {
			continue
		}
		failed++
		msg := errs[u.Fingerprint]
		if msg == "" {
			msg = "not produced by its slurm job"
		}
		if firstErr == nil {
			firstErr = errors.New(msg)
		}
		ref := results.Unit{Fingerprint: u.Fingerprint, Kind: job.Kind, StageKey: job.StageKey, RunID: job.RunID}
		_ = job.Store.FailUnit(context.WithoutCancel(ctx), ref, msg)
		if job.Failed != nil {
			job.Failed()
		}
	}
	return ran, failed, firstErr
}

// stageDir is where a stage's attempts live, keyed by the stage
// fingerprint so a new run of the same config finds them.
func (e *Executor) stageDir(job *runner.ExecJob) string {
	root := e.Dir
	if root == "" {
		root = filepath.Join(filepath.Dir(job.RunDir), "slurm")
	}
	fp := job.Fingerprint
	if len(fp) > 16 {
		fp = fp[:16]
	}
	return filepath.Join(root, job.StageKey+"-"+fp)
}

// submit writes an attempt's files and submits its job.
func (e *Executor) submit(ctx context.Context, job *runner.ExecJob, stageDir string, n int, fps []string) (*Attempt, error) {
	opts, err := StageOptions(job.Experiment, job.StageKey)
	if err != nil {
		return nil, err
	}
	dir, err := filepath.Abs(filepath.Join(stageDir, "attempt-"+strconv.Itoa(n)))
	if err != nil {
		return nil, err
	}
	for _, d := range []string{"logs", "shards"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			return nil, fmt.Errorf("creating attempt directory: %w", err)
		}
	}
	a := &Attempt{N: n, RunID: job.RunID, Stage: job.StageKey, Dir: dir, Shards: split(fps, e.maxShards())}
	if err := results.Snapshot(ctx, job.Store, filepath.Join(dir, "input.db")); err != nil {
		return nil, err
	}
	ub, _ := json.Marshal(a.Shards)
	if err := os.WriteFile(filepath.Join(dir, "units.json"), ub, 0o644); err != nil {
		return nil, fmt.Errorf("writing shard units: %w", err)
	}
	bin := e.Binary
	if bin == "" {
		if bin, err = os.Executable(); err != nil {
			return nil, fmt.Errorf("finding the mascot binary: %w", err)
		}
	}
	runDir, _ := filepath.Abs(job.RunDir)
	cwd, _ := os.Getwd()
	script := Render(ScriptSpec{Name: "mascot-" + job.StageKey, Dir: dir, Chdir: cwd, Shards: len(a.Shards),
		Options: opts, Command: []string{bin, "stage-exec", "--spec", filepath.Join(runDir, "run_config.json"),
			"--stage", job.StageKey, "--units", filepath.Join(dir, "units.json"), "--shard", "{shard}",
			"--input", filepath.Join(dir, "input.db"), "--out", "{out}", "--run-dir", runDir}})
	path := filepath.Join(dir, "job.sh")
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		return nil, fmt.Errorf("writing job script: %w", err)
	}
	e.Submits.Add(1)
	id, err := e.CLI.Submit(ctx, path)
	if err != nil {
		return nil, err
	}
	a.JobID, a.Submitted = id, time.Now()
	if err := a.save(); err != nil {
		_ = e.CLI.Cancel(context.WithoutCancel(ctx), id)
		return nil, err
	}
	// A copy in the run directory, for people reading it.
	if err := os.MkdirAll(filepath.Join(runDir, "jobs", job.StageKey), 0o755); err == nil {
		b, _ := json.MarshalIndent(a, "", "  ")
		_ = os.WriteFile(filepath.Join(runDir, "jobs", job.StageKey, "attempt-"+strconv.Itoa(n)+".json"), b, 0o644)
	}
	return a, nil
}

func (e *Executor) maxShards() int {
	if e.MaxShards > 0 {
		return e.MaxShards
	}
	return 16
}

// split deals fps round-robin into at most n shards.
func split(fps []string, n int) [][]string {
	n = max(1, min(n, len(fps)))
	out := make([][]string, n)
	for i, fp := range fps {
		out[i%n] = append(out[i%n], fp)
	}
	return out
}
