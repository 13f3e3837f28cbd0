package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/spf13/cobra"

	"mascot.dev/mascot/results"
	"mascot.dev/mascot/runner"
	"mascot.dev/mascot/schema"
)

// newStageExec is the hidden command a Slurm job runs: one shard of one
// stage's units against a job-local copy of the controller's database.
func newStageExec() *cobra.Command {
	var spec, stage, units, input, out, runDir, after string
	var shard, shards int
	c := &cobra.Command{
		Use:    "stage-exec",
		Short:  "Run one shard of a stage inside a Slurm job (used by the slurm executor)",
		Hidden: true,
		Args:   exactArgs(0),
		RunE: func(c *cobra.Command, _ []string) error {
			// USR1 is Slurm's warning before the time limit; the units
			// done so far are committed, so there is nothing to save.
			signal.Ignore(syscall.SIGUSR1)
			l, err := loadRunConfig(spec, out)
			if err != nil {
				return fmt.Errorf("loading %s: %w", spec, err)
			}
			var lists [][]string
			if shards == 0 {
				b, err := os.ReadFile(units)
				if err == nil {
					err = json.Unmarshal(b, &lists)
				}
				if err != nil {
					return fmt.Errorf("reading shard units %s: %w", units, err)
				}
				if shard < 0 || shard >= len(lists) {
					return invalid("--shard %d: the attempt has %d shards", shard, len(lists))
				}
			} else if shard < 0 || shard >= shards {
				return invalid("--shard %d: the stage has %d shards", shard, shards)
			}
			db := filepath.Join(out, "shard.db")
			if err := seedShard(input, db); err != nil {
				return err
			}
			store, err := results.OpenContext(c.Context(), db)
			if err != nil {
				return fmt.Errorf("opening shard database: %w", err)
			}
			defer store.Close()
			logger := slog.New(slog.NewTextHandler(c.ErrOrStderr(), &slog.HandlerOptions{Level: slog.LevelWarn}))
			sh := &runner.Shard{Stage: stage, RunDir: runDir}
			if shards == 0 {
				sh.Units = lists[shard]
			} else {
				// Detached: bring in the earlier stages' results; the run
				// lists this stage's units and runs its share of them.
				if err = ingestEarlier(c.Context(), store, after); err != nil {
					return err
				}
				sh.Part, sh.Parts = shard, shards
			}
			sum, err := runner.Execute(c.Context(), runner.Options{Loaded: l, Store: store,
				RunsDir: filepath.Join(out, "runs"), Log: logger, Progress: c.ErrOrStderr(), Out: c.ErrOrStderr(),
				Services: services(false), Shard: sh,
				Command: fmt.Sprintf("mascot stage-exec --stage %s --shard %d", stage, shard)})
			if sum != nil {
				fmt.Fprintf(c.ErrOrStderr(), "shard %d of %s: %d ran, %d cached, %d failed\n", shard, stage, sum.Ran, sum.Cached, sum.Failed)
				if werr := writeShardCounters(out, stage, sum); werr != nil && err == nil {
					err = werr
				}
			}
			return err
		},
	}
	c.Flags().StringVar(&spec, "spec", "", "the run's run_config.json")
	c.Flags().StringVar(&stage, "stage", "", "stage key")
	c.Flags().StringVar(&units, "units", "", "JSON list of unit fingerprint lists, one per shard")
	c.Flags().IntVar(&shard, "shard", 0, "this task's shard index")
	c.Flags().StringVar(&input, "input", "", "snapshot of the controller's database")
	c.Flags().StringVar(&out, "out", "", "this shard's output directory (shard.db)")
	c.Flags().StringVar(&runDir, "run-dir", "", "the controller's run directory; the stage writes its files under it")
	c.Flags().IntVar(&shards, "shards", 0, "detached mode: the stage's number of shards (units are listed in the job, not given by --units)")
	c.Flags().StringVar(&after, "after", "", "detached mode: JSON list of earlier stages' shard databases to ingest first, in order")
	for _, f := range []string{"spec", "stage", "input", "out"} {
		_ = c.MarkFlagRequired(f)
	}
	return c
}

// ingestEarlier ingests, in the listed order, the shard databases of the
// stages a detached job comes after (read-only files on the shared run
// directory) into its own database. The controller's sync ingests the same
// files in the same order, so row ids agree. Ingest is idempotent, so a
// requeued task repeats it harmlessly.
func ingestEarlier(ctx context.Context, store *results.Store, after string) error {
	if after == "" {
		return nil
	}
	var dbs []string
	b, err := os.ReadFile(after)
	if err == nil {
		err = json.Unmarshal(b, &dbs)
	}
	if err != nil {
		return fmt.Errorf("reading %s: %w", after, err)
	}
	_ = store.CreateRun(ctx, results.Run{ID: "detached-inputs", Name: "detached-inputs", Status: results.RunDone})
	for _, db := range dbs {
		if _, err := os.Stat(db); err != nil {
			continue // an empty shard of an earlier stage
		}
		if _, err := results.Ingest(ctx, store, db, "detached-inputs"); err != nil {
			return fmt.Errorf("ingesting an earlier stage: %w", err)
		}
	}
	return nil
}

// writeShardCounters writes the stage's counters as counters.json in the
// shard directory; the controller adds them to its run once it ingests the
// shard. units_failed is left out: the controller counts failed units.
// Zeros are kept: the controller's run has the same counters as a local run.
func writeShardCounters(out, stage string, sum *runner.Summary) error {
	counters := map[string]int64{}
	for _, st := range sum.Stages {
		if st.Key != stage {
			continue
		}
		for k, v := range st.Counters {
			if k != "units_failed" {
				counters[k] += v
			}
		}
	}
	b, _ := json.Marshal(counters)
	tmp := filepath.Join(out, "counters.json.tmp")
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return fmt.Errorf("writing shard counters: %w", err)
	}
	if err := os.Rename(tmp, filepath.Join(out, "counters.json")); err != nil {
		return fmt.Errorf("writing shard counters: %w", err)
	}
	return nil
}

// loadRunConfig loads a run's resolved config. run_config.json is JSON,
// which is CUE, so it is loaded through a .cue copy in the shard directory.
func loadRunConfig(spec, out string) (*schema.Loaded, error) {
	if filepath.Ext(spec) == ".json" {
		b, err := os.ReadFile(spec)
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", spec, err)
		}
		if err := os.MkdirAll(out, 0o755); err != nil {
			return nil, fmt.Errorf("creating shard directory: %w", err)
		}
		spec = filepath.Join(out, "run_config.cue")
		if err := os.WriteFile(spec, b, 0o644); err != nil {
			return nil, fmt.Errorf("writing %s: %w", spec, err)
		}
	}
	return schema.Load(spec, runner.Default.Kinds(), schema.Options{})
}

// seedShard copies the snapshot to the shard database unless a requeued
// run of this task left one (whose done units it then resumes).
func seedShard(input, db string) error {
	if _, err := os.Stat(db); err == nil {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(db), 0o755); err != nil {
		return fmt.Errorf("creating shard directory: %w", err)
	}
	src, err := os.Open(input)
	if err != nil {
		return fmt.Errorf("opening snapshot: %w", err)
	}
	defer src.Close()
	tmp := db + ".tmp"
	dst, err := os.Create(tmp)
	if err != nil {
		return fmt.Errorf("seeding shard database: %w", err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		dst.Close()
		return fmt.Errorf("seeding shard database: %w", err)
	}
	if err := dst.Close(); err != nil {
		return fmt.Errorf("seeding shard database: %w", err)
	}
	if err := os.Rename(tmp, db); err != nil {
		return fmt.Errorf("seeding shard database: %w", err)
	}
	return nil
}
