package cli

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"mascot.dev/mascot/runner"
	"mascot.dev/mascot/schema"
)

// multirunFlags are the -m axes of run, plan and sweep.
type multirunFlags struct {
	axes        []string
	zip         bool
	maxParallel int
}

func (f *multirunFlags) add(c *cobra.Command) {
	c.Flags().StringArrayVarP(&f.axes, "multirun", "m", nil,
		"sweep axis path=a,b,c (repeatable): a grid over the axes, recorded as a sweep; \"@TAG=a,b\" sets a tag per variant")
	c.Flags().BoolVar(&f.zip, "zip", false, "pair the -m axes element-wise instead of taking their grid")
	c.Flags().IntVar(&f.maxParallel, "max-parallel", 0, "variants run at once (default: the sweep's max_parallel, 2)")
}

// sweepDef is the sweep the flags ask for: the -m axes (with the spec's
// own sweep's show and max_parallel), else the spec's sweep; nil for the
// spec's sweep unchanged.
func (f *multirunFlags) sweepDef(l *schema.Loaded) (*schema.Sweep, error) {
	var def *schema.Sweep
	if len(f.axes) > 0 {
		var err error
		if def, err = runner.ParseMultirun(f.axes, f.zip); err != nil {
			return nil, usageError{err}
		}
		if own := l.Experiment.Sweep; own != nil {
			def.Show, def.MaxParallel, def.Search = own.Show, own.MaxParallel, own.Search
		}
	} else if f.zip {
		return nil, invalid("--zip pairs -m axes; give some")
	}
	if f.maxParallel > 0 {
		if def == nil {
			if l.Experiment.Sweep == nil {
				return nil, invalid("--max-parallel bounds a sweep's variants; this spec has no sweep (use -m)")
			}
			cp := *l.Experiment.Sweep
			def = &cp
		}
		def.MaxParallel = f.maxParallel
	}
	return def, nil
}

// sweep runs the spec's sweep or the -m axes and prints the summary.
func (f *runFlags) sweep(c *cobra.Command, arg string, opts runner.Options, search *schema.Search) error {
	def, err := f.multi.sweepDef(opts.Loaded)
	if err != nil {
		return err
	}
	sum, err := runner.Sweep(c.Context(), runner.SweepOptions{Arg: arg,
		Load: schema.Options{Tags: f.tags, Sets: f.sets}, Run: opts, Sweep: def, Search: search})
	if sum != nil {
		if f.jsonOut {
			_ = printJSON(c.OutOrStdout(), sum)
		} else {
			runner.PrintSweep(c.OutOrStdout(), sum)
		}
	}
	return err
}

// planSweep prints the plan of every variant.
func (f *runFlags) planSweep(c *cobra.Command, arg string, opts runner.Options, format string) error {
	def, err := f.multi.sweepDef(opts.Loaded)
	if err != nil {
		return err
	}
	sp, err := runner.PlanSweep(c.Context(), runner.SweepOptions{Arg: arg,
		Load: f.loadOptions(), Run: opts, Sweep: def})
	if err != nil {
		return err
	}
	switch format {
	case "table":
		runner.PrintSweepPlan(c.OutOrStdout(), sp)
	case "json":
		b, _ := json.MarshalIndent(sp, "", "  ")
		fmt.Fprintln(c.OutOrStdout(), string(b))
	default:
		return invalid("a sweep's plan is printed as table or json, not %q (plan one variant with --set for a graph)", format)
	}
	return nil
}

// searchFlags are sweep's racing flags.
type searchFlags struct {
	race, halving           bool
	first, growth           int
	metric                  string
	confidence              float64
	budgetUnits, budgetReqs int
}

func (s *searchFlags) add(c *cobra.Command) {
	c.Flags().BoolVar(&s.race, "race", false, "racing search: run every variant on a first slice of the evaluation contexts, extend only those whose paired CI against the best still reaches it")
	c.Flags().BoolVar(&s.halving, "halving", false, "successive halving: like --race, keeping the better half each round")
	c.Flags().IntVar(&s.first, "first", 0, "evaluation contexts of the first round (default: the sweep's first_contexts, 8)")
	c.Flags().IntVar(&s.growth, "growth", 0, "factor the contexts grow by each round (default 2)")
	c.Flags().StringVar(&s.metric, "metric", "", "report column to race on: a criterion, a metric or overall (default: the first shown column)")
	c.Flags().Float64Var(&s.confidence, "confidence", 0, "confidence of the paired CI (default 0.95)")
	c.Flags().IntVar(&s.budgetUnits, "budget-units", 0, "stop the search once this many units have run")
	c.Flags().IntVar(&s.budgetReqs, "budget-requests", 0, "stop the search once this many LLM requests were sent")
}

// search returns the search the flags ask for over the sweep's own, or
// nil when no flag is set.
func (s *searchFlags) search(c *cobra.Command, own *schema.Sweep) (*schema.Search, error) {
	if s.race && s.halving {
		return nil, invalid("--race and --halving are two strategies; choose one")
	}
	var out schema.Search
	if own != nil {
		out = own.Search
	}
	changed := false
	for _, name := range []string{"race", "halving", "first", "growth", "metric", "confidence", "budget-units", "budget-requests"} {
		changed = changed || c.Flags().Changed(name)
	}
	if !changed {
		return nil, nil
	}
	switch {
	case s.race:
		out.Strategy = "race"
	case s.halving:
		out.Strategy = "halving"
	}
	if out.Strategy == "" || out.Strategy == "full" {
		return nil, invalid("--first, --growth, --metric, --confidence and the budgets belong to a search: add --race or --halving")
	}
	set := func(name string, dst *int, v int) {
		if c.Flags().Changed(name) {
			*dst = v
		}
	}
	set("first", &out.FirstContexts, s.first)
	set("growth", &out.Growth, s.growth)
	set("budget-units", &out.BudgetUnits, s.budgetUnits)
	set("budget-requests", &out.BudgetRequests, s.budgetReqs)
	if c.Flags().Changed("metric") {
		out.Metric = s.metric
	}
	if c.Flags().Changed("confidence") {
		if s.confidence <= 0 || s.confidence >= 1 {
			return nil, invalid("--confidence %v: want a number between 0 and 1", s.confidence)
		}
		out.Confidence = s.confidence
	}
	if out.Growth == 1 || out.FirstContexts < 0 || out.Growth < 0 {
		return nil, invalid("--first must be at least 1 and --growth at least 2")
	}
	return &out, nil
}

func newSweep() *cobra.Command {
	var f runFlags
	var sf searchFlags
	c := &cobra.Command{
		Use:   "sweep NAME|FILE",
		Short: "Run every variant of the experiment's sweep as child runs; shared upstream stages run once",
		Long: `sweep expands the experiment's sweep (grid or zip over config paths, times seeds; or the
-m axes) into child runs of one parent run, up to max_parallel at a time. Variants share
every unit whose fingerprint they have in common, so a sweep over a training
hyperparameter reuses generation, judging and reward models. A variant that fails does not
stop the others; the summary says which failed and why. Rerunning the same sweep resumes,
like run. An axis replaces the value the spec's own file writes at its path; "@NAME" axes
set a tag per variant (say, one server URL per model).

--race runs every variant on a first slice of the evaluation contexts (episodes stages in
mode eval), then extends only the variants whose paired CI against the current best still
reaches it, doubling the contexts each round; --halving keeps the better half instead.
Every unit a round ran is reused by the next (fingerprints do not depend on the slice), and
the report says which variants were stopped, after which round, on what evidence. The
search stops early at --budget-units or --budget-requests.`,
		Example: `  mascot sweep paper/model-size -t vllm_0_6b=http://gpu01:8008/v1 -t vllm_1_7b=http://gpu02:8008/v1 -t vllm_8b=http://gpu03:8008/v1 -t judge=http://gpu04:8009/v1
  mascot sweep my-sweep.cue --race --first 16 --metric overall
  mascot sweep tour.cue -m stages.eval.turns=2,3,4 --halving --budget-units 200 --json`,
		Args: exactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			opts, closeFn, err := f.options(c.Context(), args[0], c)
			if err != nil {
				return err
			}
			defer closeFn()
			search, err := sf.search(c, opts.Loaded.Experiment.Sweep)
			if err != nil {
				return err
			}
			if opts.Loaded.Experiment.Sweep == nil && len(f.multi.axes) == 0 {
				return invalid("%s declares no sweep: add a sweep block or pass -m path=a,b", args[0])
			}
			return f.sweep(c, args[0], opts, search)
		},
	}
	f.add(c, true)
	sf.add(c)
	c.Flags().BoolVar(&f.jsonOut, "json", false, "print the sweep summary as JSON")
	return c
}
