package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"mascot.dev/mascot/results"
	"mascot.dev/mascot/runner"
)

// runRefFlags are the flags of the commands that reopen a finished run
// (chat, judge): where its database and files are, and how to load a spec
// given instead of a run.
type runRefFlags struct {
	specFlags
	db, runsDir string
}

func (f *runRefFlags) add(c *cobra.Command) {
	f.specFlags.add(c)
	c.Flags().StringVar(&f.db, "db", results.DefaultPath, "results database (SQLite)")
	c.Flags().StringVar(&f.runsDir, "runs-dir", "runs", "directory of the runs' files")
}

// openStore opens the results database, which must exist.
func (f *runRefFlags) openStore(ctx context.Context) (*results.Store, error) {
	if !fileExists(f.db) {
		return nil, invalid("no results database at %s (run an experiment first, or pass --db)", f.db)
	}
	store, err := results.OpenContext(ctx, f.db)
	if err != nil {
		return nil, fmt.Errorf("opening results database: %w", err)
	}
	return store, nil
}

// resolve finds the run: a run reference (latest, id, name, id prefix),
// else a spec whose newest run of the same name is used.
func (f *runRefFlags) resolve(ctx context.Context, store *results.Store, ref string) (results.Run, error) {
	run, err := store.ResolveRun(ctx, ref)
	if errors.Is(err, results.ErrNotFound) {
		l, lerr := f.load(ref)
		if lerr != nil {
			return run, invalid("%s is neither a run in %s nor a spec: %v", ref, f.db, lerr)
		}
		if run, err = store.ResolveRun(ctx, l.Experiment.Name); errors.Is(err, results.ErrNotFound) {
			return run, invalid("spec %s has no run in %s (mascot run %s first)", ref, f.db, ref)
		}
	}
	if err != nil {
		return run, err
	}
	if run.Status == results.RunRunning {
		return run, invalid("run %s is still running; reopen it once it has finished", run.ID)
	}
	return run, nil
}

// runOptions loads the run's stored config and returns the runner options
// that reopen it (its endpoints and models, this database and runs dir).
func (f *runRefFlags) runOptions(c *cobra.Command, store *results.Store, run results.Run) (runner.Options, error) {
	tmp, err := os.MkdirTemp("", "mascot-reopen-")
	if err != nil {
		return runner.Options{}, fmt.Errorf("creating a scratch directory: %w", err)
	}
	defer os.RemoveAll(tmp)
	spec := filepath.Join(tmp, "run_config.json")
	if err := os.WriteFile(spec, run.ConfigJSON, 0o644); err != nil {
		return runner.Options{}, fmt.Errorf("writing the run's config: %w", err)
	}
	l, err := loadRunConfig(spec, tmp)
	if err != nil {
		return runner.Options{}, fmt.Errorf("loading the config of run %s: %w", run.ID, err)
	}
	logger := slog.New(slog.NewTextHandler(c.ErrOrStderr(), &slog.HandlerOptions{Level: slog.LevelWarn}))
	return runner.Options{Loaded: l, Store: store, RunsDir: f.runsDir, Log: logger, Out: c.ErrOrStderr(),
		Services: services(false)}, nil
}
