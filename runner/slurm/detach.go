package slurm

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"mascot.dev/mascot/internal/safepath"
	"mascot.dev/mascot/results"
	"mascot.dev/mascot/runner"
)

// Detached is the record of a run whose whole stage graph was submitted up
// front (`mascot run --detach`), stored as detached/state.json in the run
// directory. `mascot sync` reads and updates it.
type Detached struct {
	RunID    string `json:"run_id"`
	RunDir   string `json:"run_dir"`
	Database string `json:"database"`
	// Watermark is the highest row id per result table of the controller's
	// database when the jobs' snapshot was taken, advanced by every ingest.
	// Jobs number their rows from the same state, so ingest is only sound
	// while the database matches it (sync checks before each ingest).
	Watermark map[string]int64 `json:"watermark"`
	Stages    []*DetachedStage `json:"stages"`
	Finalized bool             `json:"finalized"`
	Submitted time.Time        `json:"submitted_at"`
}

// DetachedStage is one stage's job (an array when Shards > 1).
type DetachedStage struct {
	Key      string   `json:"key"`
	Kind     string   `json:"kind"`
	JobID    string   `json:"job_id"`
	Shards   int      `json:"shards"`
	Dir      string   `json:"dir"`
	Parents  []string `json:"parents"`
	After    []string `json:"after"` // job ids it waits for (afterok)
	Ingested bool     `json:"ingested"`
	// Final is done, failed or cancelled once known; empty while not.
	Final string `json:"final,omitempty"`
	Msg   string `json:"message,omitempty"`
}

// attempt views the stage's job as an Attempt (for exitcode files, task
// ids and log paths).
func (s *DetachedStage) attempt() *Attempt {
	return &Attempt{JobID: s.JobID, Shards: make([][]string, s.Shards), Dir: s.Dir}
}

// statePath is where a detached run's record lives.
func statePath(runDir string) string { return filepath.Join(runDir, "detached", "state.json") }

// LoadDetached reads a detached run's record from its run directory.
func LoadDetached(runDir string) (*Detached, error) {
	b, err := os.ReadFile(statePath(runDir))
	if err != nil {
		return nil, fmt.Errorf("reading detached run record: %w", err)
	}
	d := &Detached{}
	if err := json.Unmarshal(b, d); err != nil {
		return nil, fmt.Errorf("reading %s: %w", statePath(runDir), err)
	}
	return d, nil
}

func (d *Detached) save() error {
	b, err := json.MarshalIndent(d, "", "  ")
	if err != nil {
		return err
	}
	p := statePath(d.RunDir)
	if err := os.WriteFile(p+".tmp", append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("writing detached run record: %w", err)
	}
	if err := os.Rename(p+".tmp", p); err != nil {
		return fmt.Errorf("writing detached run record: %w", err)
	}
	return nil
}

// Detach submits every stage of the experiment as one Slurm job (an array
// of Shards tasks when the stage's slurm.array_parallelism is above 1),
// each depending (afterok) on the jobs of every stage before it in
// topological order, and returns the run's record. It does not wait.
func (e *Executor) Detach(ctx context.Context, opts runner.Options) (*Detached, error) {
	stages, err := runner.Graph(ctx, opts)
	if err != nil {
		return nil, err
	}
	runsDir := opts.RunsDir
	if runsDir == "" {
		runsDir = "runs"
	}
	runID := results.NewRunID()
	runDir, err := filepath.Abs(filepath.Join(runsDir, runID))
	if err != nil {
		return nil, err
	}
	base := filepath.Join(runDir, "detached")
	if err := os.MkdirAll(base, 0o755); err != nil {
		return nil, fmt.Errorf("creating run directory: %w", err)
	}
	spec := filepath.Join(runDir, "run_config.json")
	if err := os.WriteFile(spec, opts.Loaded.Canonical, 0o644); err != nil {
		return nil, fmt.Errorf("writing run_config.json: %w", err)
	}
	db, _ := filepath.Abs(opts.Store.Path())
	d := &Detached{RunID: runID, RunDir: runDir, Database: db, Submitted: time.Now()}
	exp := opts.Loaded.Experiment
	if err := opts.Store.CreateRun(ctx, results.Run{ID: runID, Name: exp.Name, ConfigName: opts.Loaded.Name,
		ConfigJSON: opts.Loaded.Canonical, Command: opts.Command, Status: results.RunRunning, StartedAt: d.Submitted}); err != nil {
		return nil, fmt.Errorf("recording run: %w", err)
	}
	if d.Watermark, err = opts.Store.MaxRowIDs(ctx); err != nil {
		return nil, err
	}
	input := filepath.Join(base, "input.db")
	if err := results.Snapshot(ctx, opts.Store, input); err != nil {
		return nil, err
	}
	bin := e.Binary
	if bin == "" {
		if bin, err = os.Executable(); err != nil {
			return nil, fmt.Errorf("finding the mascot binary: %w", err)
		}
	}
	cwd, _ := os.Getwd()
	var shardDBs, jobIDs []string // of the stages submitted so far, in order
	for _, g := range stages {
		dir, err := safepath.Join(base, g.Key)
		if err != nil {
			return nil, fmt.Errorf("choosing the directory of stage %q: %w", g.Key, err)
		}
		so, err := StageOptions(exp, g.Key)
		if err != nil {
			return nil, err
		}
		s := &DetachedStage{Key: g.Key, Kind: g.Kind, Shards: max(1, min(so.ArrayParallelism, e.maxShards())),
			Dir: dir, Parents: g.Deps, After: append([]string(nil), jobIDs...)}
		for _, sub := range []string{"logs", "shards"} {
			if err := os.MkdirAll(filepath.Join(s.Dir, sub), 0o755); err != nil {
				return nil, fmt.Errorf("creating stage directory: %w", err)
			}
		}
		after := filepath.Join(s.Dir, "after.json")
		ab, _ := json.Marshal(shardDBs)
		if err := os.WriteFile(after, ab, 0o644); err != nil {
			return nil, fmt.Errorf("writing %s: %w", after, err)
		}
		script := Render(ScriptSpec{Name: "mascot-" + g.Key, Dir: s.Dir, Chdir: cwd, Shards: s.Shards, Options: so,
			Command: []string{bin, "stage-exec", "--spec", spec, "--stage", g.Key, "--shard", "{shard}",
				"--shards", strconv.Itoa(s.Shards), "--input", input, "--after", after, "--out", "{out}", "--run-dir", runDir}})
		path := filepath.Join(s.Dir, "job.sh")
		if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
			return nil, fmt.Errorf("writing job script: %w", err)
		}
		var args []string
		if len(jobIDs) > 0 {
			args = append(args, "--dependency=afterok:"+strings.Join(jobIDs, ":"))
		}
		e.Submits.Add(1)
		id, err := e.CLI.Submit(ctx, path, args...)
		if err != nil {
			_ = e.CLI.Cancel(context.WithoutCancel(ctx), jobIDs...)
			return nil, fmt.Errorf("submitting stage %s to slurm: %w", g.Key, err)
		}
		s.JobID = id
		d.Stages = append(d.Stages, s)
		if err := d.save(); err != nil {
			_ = e.CLI.Cancel(context.WithoutCancel(ctx), append(jobIDs, id)...)
			return nil, err
		}
		jobIDs = append(jobIDs, id)
		for i := range s.Shards {
			shardDBs = append(shardDBs, filepath.Join(s.attempt().ShardDir(i), "shard.db"))
		}
	}
	return d, nil
}

// MarkFinalized records that the controller ran the finished detached
// run's last step (the stages' Finish, via a run that found every unit
// done), so later syncs do not repeat it.
func MarkFinalized(runDir string) error {
	d, err := LoadDetached(runDir)
	if err != nil {
		return err
	}
	d.Finalized = true
	return d.save()
}
