package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"mascot.dev/mascot/results"
	rep "mascot.dev/mascot/results/report"
	"mascot.dev/mascot/schema"
)

// SweepOptions configure a sweep: how to load the spec again per variant,
// and the run options every child shares (Run.Loaded, when set, is the
// spec loaded without the variants' overrides).
type SweepOptions struct {
	Arg  string
	Load schema.Options
	Run  Options
	// Sweep, when set, replaces the experiment's own sweep block (the
	// axes of `mascot run -m`).
	Sweep *schema.Sweep
	// Search, when set, replaces the sweep block's search (the flags of
	// `mascot sweep --race`).
	Search *schema.Search
}

// SweepChild is one variant's outcome.
type SweepChild struct {
	Variant Variant            `json:"variant"`
	Summary *Summary           `json:"summary"`
	Values  map[string]float64 `json:"values"` // shown columns (criteria, Overall, metrics)
	Error   string             `json:"error,omitempty"`
}

// SweepSummary is a sweep's outcome.
type SweepSummary struct {
	ParentID string       `json:"parent_id"`
	Show     []string     `json:"show"`
	Children []SweepChild `json:"children"`
	// Ran and Cached count distinct units: produced by the sweep's
	// children, and reused from before the sweep (SweepUnitCounts).
	Ran    int `json:"units_ran"`
	Cached int `json:"units_cached"`
	// Race is the racing search's account (nil for a full sweep).
	Race *RaceReport `json:"race,omitempty"`
}

// Failed lists the children that failed, in variant order.
func (s *SweepSummary) Failed() []SweepChild {
	var out []SweepChild
	for _, c := range s.Children {
		if c.Error != "" {
			out = append(out, c)
		}
	}
	return out
}

// sweep is one sweep in progress.
type sweep struct {
	opts     SweepOptions
	base     *schema.Loaded
	def      *schema.Sweep
	variants []Variant
	loaded   []*schema.Loaded
	parent   string
	store    *results.Store
}

// prepareSweep loads the base spec and every variant; a variant that does
// not load stops the sweep before anything runs, with every variant's
// errors.
func prepareSweep(opts SweepOptions) (*sweep, error) {
	base := opts.Run.Loaded // the CLI has loaded the spec already
	if base == nil {
		reg := opts.Run.Registry
		if reg == nil {
			reg = Default
		}
		var err error
		if base, err = schema.Load(opts.Arg, reg.Kinds(), opts.Load); err != nil {
			return nil, err
		}
	}
	def := opts.Sweep
	if def == nil {
		def = base.Experiment.Sweep
	}
	variants, err := Expand(def)
	if err != nil {
		return nil, err
	}
	sw := &sweep{opts: opts, base: base, def: def, variants: variants, loaded: make([]*schema.Loaded, len(variants)),
		store: opts.Run.Store}
	var all schema.Errors
	for i, v := range variants {
		l, err := schema.Load(opts.Arg, base.Experiment.Kinds, v.load(opts.Load))
		if es, ok := err.(schema.Errors); ok {
			for _, e := range es {
				e.Msg = "variant " + v.Label() + ": " + e.Msg
				all = append(all, e)
			}
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("sweep variant %s: %w", v.Label(), err)
		}
		sw.loaded[i] = l
	}
	if len(all) > 0 {
		return nil, all
	}
	return sw, nil
}

// Sweep runs every variant of the experiment's sweep (or opts.Sweep) as a
// child run of one parent run, up to the sweep's max_parallel at a time.
// Variants share upstream units through fingerprints (and, when they
// reach one unit at the same time, through in-flight de-duplication);
// rerunning the same sweep resumes like `run`. A variant that fails does
// not stop the others: the summary says which failed and why, and the
// returned error names them. With a race or halving search (see race.go)
// the variants are first run on a slice of their evaluation contexts.
func Sweep(ctx context.Context, opts SweepOptions) (*SweepSummary, error) {
	sw, err := prepareSweep(opts)
	if err != nil {
		return nil, err
	}
	search := sw.def.Search
	if opts.Search != nil {
		search = *opts.Search
	}
	racing := search.Strategy == "race" || search.Strategy == "halving"
	if racing {
		if err := sw.checkRace(); err != nil {
			return nil, err
		}
	}
	for i, v := range sw.variants {
		ro := opts.Run
		ro.Loaded = sw.loaded[i]
		if err := Preflight(ctx, ro); err != nil {
			return nil, fmt.Errorf("sweep variant %s: %w", v.Label(), err)
		}
	}
	if err := sw.createParent(ctx); err != nil {
		return nil, err
	}
	log := opts.Run.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	stopBeat := heartbeat(ctx, sw.store, sw.parent, log)
	defer stopBeat()
	sum := &SweepSummary{ParentID: sw.parent, Show: sw.def.Show, Children: make([]SweepChild, len(sw.variants))}
	if racing {
		sum.Race, err = sw.race(ctx, search, sum)
	} else {
		all := make([]int, len(sw.variants))
		for i := range all {
			all[i] = i
		}
		sw.runAll(ctx, all, nil, sum)
	}
	return sw.finish(ctx, sum, err)
}

// createParent records the sweep's parent run; its axes are the sweep
// definition, so a multirun is recorded like a file's sweep.
func (sw *sweep) createParent(ctx context.Context) error {
	sw.parent = results.NewRunID()
	axes, _ := json.Marshal(sw.def)
	if err := sw.store.CreateRun(ctx, results.Owned(results.Run{ID: sw.parent, Name: sw.base.Experiment.Name + " (sweep)",
		ConfigName: sw.opts.Arg, ConfigJSON: sw.base.Canonical, AxesJSON: axes, Command: sw.opts.Run.Command,
		Status: results.RunRunning, StartedAt: time.Now()})); err != nil {
		return fmt.Errorf("recording sweep: %w", err)
	}
	return nil
}

// runAll runs the variants at indexes idx, max_parallel at a time, on the
// contexts of a racing round (nil: in full), and stores their outcomes
// in sum.Children.
func (sw *sweep) runAll(ctx context.Context, idx []int, rd *raceRound, sum *SweepSummary) {
	sem := make(chan struct{}, max(1, sw.def.MaxParallel))
	var wg sync.WaitGroup
	for _, i := range idx {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				sum.Children[i] = SweepChild{Variant: sw.variants[i], Error: ctx.Err().Error()}
				return
			}
			defer func() { <-sem }()
			sum.Children[i] = sw.runVariant(ctx, i, rd)
		}(i)
	}
	wg.Wait()
}

// runVariant runs variant i as a child run.
func (sw *sweep) runVariant(ctx context.Context, i int, rd *raceRound) SweepChild {
	v := sw.variants[i]
	ro := sw.opts.Run
	ro.Loaded, ro.ParentID = sw.loaded[i], sw.parent
	ro.Axes, _ = json.Marshal(v)
	if rd != nil {
		ro.Slice = &Slice{Stages: evalStages(sw.loaded[i].Experiment), Contexts: rd.contexts}
		ro.Axes, _ = json.Marshal(raceAxes{Variant: v, Round: rd.round, Contexts: rd.contexts})
	}
	ro.Out = io.Discard
	s, err := Execute(ctx, ro)
	child := SweepChild{Variant: v, Summary: s}
	if err != nil {
		child.Error = err.Error()
	}
	if s != nil {
		child.Values = showValues(ctx, sw.store, s.RunID)
	}
	return child
}

// finish totals the children, records the parent's outcome and returns
// the error that names the failed variants.
func (sw *sweep) finish(ctx context.Context, sum *SweepSummary, err error) (*SweepSummary, error) {
	status := results.RunDone
	// The header's counts are distinct units read from the database: the
	// children's own sums depend on which sibling reached a shared unit
	// first. A racing search reports what its rounds spent.
	if sum.Race != nil {
		sum.Ran, sum.Cached = sum.Race.UnitsRan, sum.Race.UnitsCached
	} else if ran, cached, cerr := sw.store.SweepUnitCounts(context.WithoutCancel(ctx), sw.parent); cerr == nil {
		sum.Ran, sum.Cached = ran, cached
	} else if err == nil {
		err = cerr
	}
	if failed := sum.Failed(); len(failed) > 0 && err == nil {
		err = fmt.Errorf("%d of %d sweep variants failed (first: %s: %s); rerun the same command to retry them",
			len(failed), len(sum.Children), failed[0].Variant.Label(), failureLine(failed[0].Error))
	}
	if err != nil {
		status = results.RunFailed
	}
	if ctx.Err() != nil {
		status = results.RunInterrupted
	}
	b, _ := json.Marshal(sum)
	if ferr := sw.store.FinishRun(context.WithoutCancel(ctx), sw.parent, status, string(b)); ferr != nil && err == nil {
		err = ferr
	}
	return sum, err
}

// showValues sums a child run's report up to one number per column
// (report.ColumnMeans: N-weighted over systems and splits), keyed by
// criterion id, metric name or "<level> overall".
func showValues(ctx context.Context, store *results.Store, runID string) map[string]float64 {
	r, err := rep.Build(ctx, store, []string{runID}, rep.Options{Resamples: -1, SplitBy: "none"})
	if err != nil {
		return nil
	}
	return rep.ColumnMeans(r)
}
