package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"mascot.dev/mascot/results"
	"mascot.dev/mascot/runner"
	_ "mascot.dev/mascot/runner/stages/all" // registers every stage kind
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
	multi   multirunFlags
}

func (f *runFlags) add(c *cobra.Command, execution bool) {
	f.specFlags.add(c)
	f.multi.add(c)
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

-m path=a,b,c (repeatable) makes the run a multirun: a grid over the axes (--zip pairs
them instead), recorded as a sweep like one declared in a file, whose variants share
every unit they have in common. An axis replaces the value the spec's own file writes at
the path (where --set unifies, and so conflicts with a concrete value); an axis "@NAME"
sets the @tag NAME per variant.

Stage kinds:
` + runner.Default.KindsHelp(),
		Example: `  mascot run demo
  mascot run tour.cue -m stages.eval.turns=2,3 -m endpoints.speaker.sampling.temperature=0.7,1.0
  mascot run paper/qmsum -t vllm=http://gpu01:8008/v1 -t judge=http://gpu02:8008/v1
  mascot run my.cue --set stages.candidates.k=4 --only candidates --strict`,
		Args: exactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if len(f.multi.axes) == 0 && (f.multi.zip || f.multi.maxParallel > 0) {
				return invalid("--zip and --max-parallel shape a multirun: give its axes with -m path=a,b")
			}
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
			if len(f.multi.axes) > 0 {
				if detach {
					return invalid("--detach runs one experiment; it does not take -m")
				}
				return f.sweep(c, args[0], opts, nil)
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
		Short: "Show the stage graph with units total / done / to run (of every variant, for a sweep)",
		Long: `plan shows the stage graph in execution order with the units each stage has, how many
are done already (cached) and how many will run. For a sweep (a spec with a sweep block,
or -m axes) it lists every variant, the stages all variants share (they run once) and the
units each variant adds.`,
		Example: `  mascot plan demo
  mascot plan tour.cue -m stages.eval.turns=2,3
  mascot plan paper/qmsum -t vllm=http://gpu01:8008/v1 -t judge=http://gpu02:8008/v1 --format mermaid`,
		Args: exactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if !slices.Contains([]string{"table", "json", "mermaid", "dot"}, format) {
				return invalid("unknown plan format %q (want table, json, mermaid or dot)", format)
			}
			opts, closeFn, err := f.options(c.Context(), args[0], c)
			if err != nil {
				return err
			}
			defer closeFn()
			printOpenTags(c.ErrOrStderr(), opts.Loaded)
			if len(f.multi.axes) > 0 || opts.Loaded.Experiment.Sweep != nil {
				return f.planSweep(c, args[0], opts, format)
			}
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
	f.open = true
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
