package cli

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"mascot.dev/mascot/results"
	"mascot.dev/mascot/runner"
	"mascot.dev/mascot/runner/slurm"
)

// newSync is `mascot sync RUN`: bring a detached Slurm run up to date.
func newSync() *cobra.Command {
	var runsDir string
	var jsonOut bool
	c := &cobra.Command{
		Use:   "sync RUN",
		Short: "Ingest what a detached Slurm run (run --detach) has finished and report its stages",
		Long: `sync asks Slurm about every job of a run submitted with 'mascot run --detach', ingests
the results of finished stages into the run's database (each once; calling sync again
is harmless), scancels jobs that can never start because a stage before them failed,
and prints each stage as done, running, pending, failed or cancelled. Once every stage
is done it runs the stages' final step (report tables) on this machine. Call it until
it says the run is complete.`,
		Example: `  mascot run my.cue --detach
  mascot sync 20250101-120000-ab12cd`,
		Args: exactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			runDir := args[0]
			if _, err := os.Stat(filepath.Join(runDir, "detached")); err != nil {
				runDir = filepath.Join(runsDir, args[0])
			}
			d, err := slurm.LoadDetached(runDir)
			if err != nil {
				return usageError{fmt.Errorf("%s is not a detached run: %w", args[0], err)}
			}
			store, err := results.OpenContext(c.Context(), d.Database)
			if err != nil {
				return fmt.Errorf("opening results database: %w", err)
			}
			defer store.Close()
			ex := &slurm.Executor{}
			rep, err := ex.Sync(c.Context(), store, d.RunDir)
			if rep != nil {
				if jsonOut {
					_ = printJSON(c.OutOrStdout(), rep)
				} else {
					printSync(c, rep)
				}
			}
			if err != nil || !rep.Complete || d.Finalized {
				return err
			}
			return finalizeDetached(c, store, d)
		},
	}
	c.Flags().StringVar(&runsDir, "runs-dir", "runs", "directory holding the run directories")
	c.Flags().BoolVar(&jsonOut, "json", false, "print the report as JSON")
	return c
}

func printSync(c *cobra.Command, rep *slurm.SyncReport) {
	w := c.OutOrStdout()
	for _, s := range rep.Stages {
		line := fmt.Sprintf("%-20s %-10s job %-10s", s.Key, s.State, s.JobID)
		if s.Units > 0 {
			line += fmt.Sprintf(" +%d units ingested", s.Units)
		}
		if s.Msg != "" {
			line += "  " + s.Msg
		}
		fmt.Fprintln(w, line)
	}
	switch {
	case rep.Complete:
		fmt.Fprintf(w, "run %s: complete\n", rep.RunID)
	case rep.Ended:
		fmt.Fprintf(w, "run %s: ended with failures (rerun the experiment to retry what failed)\n", rep.RunID)
	default:
		fmt.Fprintf(w, "run %s: in progress; run sync again later\n", rep.RunID)
	}
	if rep.Warning != "" {
		fmt.Fprintln(c.ErrOrStderr(), "warning:", rep.Warning)
	}
}

// finalizeDetached runs the experiment once on this machine: every unit
// is done, so it only runs the stages' Finish and writes a summary.
func finalizeDetached(c *cobra.Command, store *results.Store, d *slurm.Detached) error {
	l, err := loadRunConfig(filepath.Join(d.RunDir, "run_config.json"), filepath.Join(d.RunDir, "detached"))
	if err != nil {
		return fmt.Errorf("loading the run's config: %w", err)
	}
	logger := slog.New(slog.NewTextHandler(c.ErrOrStderr(), &slog.HandlerOptions{Level: slog.LevelWarn}))
	sum, err := runner.Execute(c.Context(), runner.Options{Loaded: l, Store: store, RunsDir: filepath.Dir(d.RunDir),
		Log: logger, Out: c.OutOrStdout(), Services: services(false), Command: "mascot sync " + d.RunID})
	if err != nil {
		return fmt.Errorf("finishing detached run %s: %w", d.RunID, err)
	}
	fmt.Fprintf(c.OutOrStdout(), "finished as run %s: %d units, %d ran here\n", sum.RunID, sum.Ran+sum.Cached, sum.Ran)
	return slurm.MarkFinalized(d.RunDir)
}

// runDetached is `mascot run --detach`: submit the whole graph, print the
// run id and return.
func runDetached(c *cobra.Command, opts runner.Options) error {
	d, err := (&slurm.Executor{}).Detach(c.Context(), opts)
	if err != nil {
		return err
	}
	for _, s := range d.Stages {
		fmt.Fprintf(c.ErrOrStderr(), "submitted %s as slurm job %s (%d shards)\n", s.Key, s.JobID, s.Shards)
	}
	fmt.Fprintln(c.OutOrStdout(), d.RunID)
	return nil
}
