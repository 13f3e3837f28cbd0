package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"mascot.dev/mascot/results"
	"mascot.dev/mascot/runner"
	_ "mascot.dev/mascot/runner/stages/all" // registers every stage kind
	"mascot.dev/mascot/schema"
)

// runFlags are the flags of run, plan and sweep.
type runFlags struct {
	specFlags
	db      string
	runsDir string
	only    string
	from    string
	strict  bool
	trace   bool
	jsonOut bool
}

func (f *runFlags) add(c *cobra.Command, execution bool) {
	f.specFlags.add(c)
	c.Flags().StringVar(&f.db, "db", results.DefaultPath, "results database (SQLite)")
	if execution {
		c.Flags().StringVar(&f.runsDir, "runs-dir", "runs", "directory for run_config.json, run_summary.json and artifacts")
		c.Flags().StringVar(&f.only, "only", "", "run only this stage (its inputs must be complete)")
		c.Flags().StringVar(&f.from, "from", "", "run this stage and everything downstream of it")
		c.Flags().BoolVar(&f.strict, "strict", false, "stop at the first failure with a non-zero exit")
		c.Flags().BoolVar(&f.trace, "trace-role-calls", false, "record role, endpoint, model id, latency and status of every LLM request")
	}
}

func (f *runFlags) options(ctx context.Context, arg string, c *cobra.Command) (runner.Options, func(), error) {
	l, err := f.load(arg)
	if err != nil {
		return runner.Options{}, nil, err
	}
	store, err := openDB(ctx, f.db)
	if err != nil {
		return runner.Options{}, nil, err
	}
	logger := slog.New(slog.NewTextHandler(c.ErrOrStderr(), &slog.HandlerOptions{Level: slog.LevelWarn}))
	opts := runner.Options{Loaded: l, Store: store, RunsDir: f.runsDir, Only: f.only, From: f.from,
		Strict: f.strict, Progress: c.ErrOrStderr(), Out: c.OutOrStdout(), Log: logger,
		Services: services(f.trace), Command: "mascot " + strings.Join(os.Args[1:], " ")}
	return opts, func() { store.Close() }, nil
}

func newRun() *cobra.Command {
	var f runFlags
	var detach bool
	c := &cobra.Command{
		Use:   "run NAME|FILE",
		Short: "Run an experiment; rerunning the same command resumes",
		Long: `Run executes the experiment's stage graph. Every unit of work is committed to the
results database with its fingerprint, so rerunning the same command resumes: done units
are reused, failed ones are retried. A changed config reports which stages are
invalidated before any work starts.

Stage kinds:
` + runner.Default.KindsHelp(),
		Example: `  mascot run demo
  mascot run paper/qmsum -t vllm=http://gpu01:8008/v1 -t judge=http://gpu02:8008/v1
  mascot run my.cue --set stages.candidates.k=4 --only candidates --strict`,
		Args: exactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			opts, closeFn, err := f.options(c.Context(), args[0], c)
			if err != nil {
				return err
			}
			defer closeFn()
			if f.jsonOut {
				// stdout holds the JSON alone; report stages print their
				// tables with the progress, on stderr.
				opts.Out = c.ErrOrStderr()
			}
			if detach {
				return runDetached(c, opts)
			}
			sum, err := runner.Execute(c.Context(), opts)
			if sum != nil {
				printSummary(c, sum, f.jsonOut)
				if !f.jsonOut {
					if perr := printArtifacts(c, opts.Store, sum.RunID); perr != nil && err == nil {
						err = perr
					}
				}
			}
			return err
		},
	}
	f.add(c, true)
	c.Flags().BoolVar(&f.jsonOut, "json", false, "print the run summary as JSON")
	c.Flags().BoolVar(&detach, "detach", false, "submit every stage to Slurm at once (afterok dependencies) and return; collect with 'mascot sync RUN'")
	return c
}

func newPlan() *cobra.Command {
	var f runFlags
	var format string
	c := &cobra.Command{
		Use:   "plan NAME|FILE",
		Short: "Show the stage graph with units total / done / to run",
		Example: `  mascot plan demo
  mascot plan paper/qmsum -t vllm=http://gpu01:8008/v1 -t judge=http://gpu02:8008/v1 --format mermaid`,
		Args: exactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			opts, closeFn, err := f.options(c.Context(), args[0], c)
			if err != nil {
				return err
			}
			defer closeFn()
			plan, err := runner.Plan(c.Context(), opts)
			if err != nil {
				return err
			}
			switch format {
			case "table":
				runner.PrintPlan(c.OutOrStdout(), plan)
			case "json":
				b, _ := json.MarshalIndent(plan, "", "  ")
				fmt.Fprintln(c.OutOrStdout(), string(b))
			default:
				if err := runner.PlanGraph(c.OutOrStdout(), plan, format); err != nil {
					return usageError{err}
				}
			}
			return nil
		},
	}
	f.add(c, false)
	c.Flags().StringVar(&format, "format", "table", "table | json | mermaid | dot")
	return c
}

func printSummary(c *cobra.Command, s *runner.Summary, asJSON bool) {
	w := c.OutOrStdout()
	if asJSON {
		b, _ := json.MarshalIndent(s, "", "  ")
		fmt.Fprintln(w, string(b))
		return
	}
	fmt.Fprintf(w, "\nrun %s (%s): %s in %.1fs — %d units ran, %d cached, %d failed\n",
		s.RunID, shown(s.Name), s.Status, s.Seconds, s.Ran, s.Cached, s.Failed)
	if s.Ran == 0 && s.Failed == 0 && s.Cached > 0 {
		fmt.Fprintln(w, "nothing to do: every unit was already done (cached)")
	}
	fmt.Fprintf(w, "database: %s\nrun directory: %s\n", s.Database, s.RunDir)
}

// printArtifacts lists the models, reward models and adapters the run
// produced or reused, with the directory each lives in, so a user knows
// what to pass to `mascot serve` or `vllm serve --lora-modules`.
func printArtifacts(c *cobra.Command, store *results.Store, runID string) error {
	arts, err := store.Artifacts(c.Context(), runID)
	if err != nil {
		return fmt.Errorf("listing the run's artifacts: %w", err)
	}
	if len(arts) == 0 {
		return nil
	}
	w := c.OutOrStdout()
	fmt.Fprintln(w, "models and adapters:")
	for _, a := range arts {
		fmt.Fprintf(w, "  %-14s %s\n", a.Kind, a.Path)
	}
	return nil
}

func init() { extraCommands = append(extraCommands, newRun) }

func newSweep() *cobra.Command {
	var f runFlags
	c := &cobra.Command{
		Use:   "sweep NAME|FILE",
		Short: "Run every variant of the experiment's sweep as child runs; shared upstream stages run once",
		Long: `sweep expands the experiment's sweep (grid or zip over config paths, times seeds) into
child runs of one parent run. Variants share every unit whose fingerprint they have in
common, so a sweep over a training hyperparameter reuses generation, judging and reward
models. Rerunning the same sweep resumes, like run. Axis paths must name fields the spec
leaves open or at a default.`,
		Example: `  mascot sweep paper/model-size -t vllm=http://gpu01:8008/v1 -t judge=http://gpu02:8009/v1
  mascot sweep my-sweep.cue --json`,
		Args: exactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			opts, closeFn, err := f.options(c.Context(), args[0], c)
			if err != nil {
				return err
			}
			defer closeFn()
			sum, err := runner.Sweep(c.Context(), runner.SweepOptions{Arg: args[0],
				Load: schema.Options{Tags: f.tags, Sets: f.sets}, Run: opts})
			if sum != nil {
				if f.jsonOut {
					_ = printJSON(c.OutOrStdout(), sum)
				} else {
					runner.PrintSweep(c.OutOrStdout(), sum)
				}
			}
			return err
		},
	}
	f.add(c, true)
	c.Flags().BoolVar(&f.jsonOut, "json", false, "print the sweep summary as JSON")
	return c
}

func init() { extraCommands = append(extraCommands, newSweep) }
