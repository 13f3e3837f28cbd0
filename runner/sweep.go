package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"sort"
	"strings"
	"sync"
	"time"

	"mascot.dev/mascot/results"
	rep "mascot.dev/mascot/results/report"
	"mascot.dev/mascot/schema"
)

// Variant is one point of a sweep: config path -> value (JSON).
type Variant struct {
	Axes map[string]json.RawMessage `json:"axes"`
	Seed *int                       `json:"seed,omitempty"`
}

// Label renders a variant as "path=value, ...".
func (v Variant) Label() string {
	keys := make([]string, 0, len(v.Axes))
	for k := range v.Axes {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, k+"="+string(v.Axes[k]))
	}
	if v.Seed != nil {
		parts = append(parts, fmt.Sprintf("seed=%d", *v.Seed))
	}
	return strings.Join(parts, ", ")
}

// sets turns the variant into --set overrides.
func (v Variant) sets() []string {
	var out []string
	for k, val := range v.Axes {
		out = append(out, k+"="+string(val))
	}
	if v.Seed != nil {
		out = append(out, fmt.Sprintf("seed=%d", *v.Seed))
	}
	sort.Strings(out)
	return out
}

// Expand lists a sweep's variants: the cartesian product of the axes
// (grid) or their element-wise pairing (zip), each repeated per seed.
func Expand(sw *schema.Sweep) ([]Variant, error) {
	if sw == nil || len(sw.Axes) == 0 {
		return nil, fmt.Errorf("the experiment declares no sweep axes")
	}
	paths := make([]string, 0, len(sw.Axes))
	for p := range sw.Axes {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	var base []map[string]json.RawMessage
	switch sw.Mode {
	case "zip":
		n := len(sw.Axes[paths[0]])
		for _, p := range paths {
			if len(sw.Axes[p]) != n {
				return nil, fmt.Errorf("zip sweep: axis %s has %d values, %s has %d", p, len(sw.Axes[p]), paths[0], n)
			}
		}
		for i := 0; i < n; i++ {
			m := map[string]json.RawMessage{}
			for _, p := range paths {
				m[p] = sw.Axes[p][i]
			}
			base = append(base, m)
		}
	default:
		base = []map[string]json.RawMessage{{}}
		for _, p := range paths {
			var next []map[string]json.RawMessage
			for _, b := range base {
				for _, v := range sw.Axes[p] {
					m := map[string]json.RawMessage{}
					for k, x := range b {
						m[k] = x
					}
					m[p] = v
					next = append(next, m)
				}
			}
			base = next
		}
	}
	var out []Variant
	for _, b := range base {
		if len(sw.Seeds) == 0 {
			out = append(out, Variant{Axes: b})
			continue
		}
		for _, s := range sw.Seeds {
			s := s
			out = append(out, Variant{Axes: b, Seed: &s})
		}
	}
	return out, nil
}

// SweepOptions configure a sweep: how to load the spec again per variant,
// and the run options every child shares (Run.Loaded, when set, is the
// spec loaded without the variants' overrides).
type SweepOptions struct {
	Arg  string
	Load schema.Options
	Run  Options
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
	Ran      int          `json:"units_ran"`
	Cached   int          `json:"units_cached"`
}

// Sweep runs every variant of the experiment's #Sweep as a child run of
// one parent run. Variants share upstream units through fingerprints (and,
// when they reach one unit at the same time, through in-flight
// de-duplication); rerunning the same sweep resumes like `run`.
func Sweep(ctx context.Context, opts SweepOptions) (*SweepSummary, error) {
	base := opts.Run.Loaded // the CLI has loaded the spec already
	if base == nil {
		var err error
		if base, err = schema.Load(opts.Arg, opts.Load); err != nil {
			return nil, err
		}
	}
	variants, err := Expand(base.Experiment.Sweep)
	if err != nil {
		return nil, err
	}
	loaded := make([]*schema.Loaded, len(variants))
	for i, v := range variants {
		lo := opts.Load
		lo.Sets = append(append([]string(nil), opts.Load.Sets...), v.sets()...)
		if loaded[i], err = schema.Load(opts.Arg, lo); err != nil {
			return nil, fmt.Errorf("sweep variant %s: %w", v.Label(), err)
		}
	}
	for i, v := range variants {
		ro := opts.Run
		ro.Loaded = loaded[i]
		if err := Preflight(ctx, ro); err != nil {
			return nil, fmt.Errorf("sweep variant %s: %w", v.Label(), err)
		}
	}
	store := opts.Run.Store
	parent := results.NewRunID()
	if err := store.CreateRun(ctx, results.Owned(results.Run{ID: parent, Name: base.Experiment.Name + " (sweep)",
		ConfigName: opts.Arg, ConfigJSON: base.Canonical, Command: opts.Run.Command,
		Status: results.RunRunning, StartedAt: time.Now()})); err != nil {
		return nil, fmt.Errorf("recording sweep: %w", err)
	}
	log := opts.Run.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	stopBeat := heartbeat(ctx, store, parent, log)
	defer stopBeat()
	sum := &SweepSummary{ParentID: parent, Show: base.Experiment.Sweep.Show, Children: make([]SweepChild, len(variants))}
	sem := make(chan struct{}, max(1, base.Experiment.Sweep.MaxParallel))
	var wg sync.WaitGroup
	for i, v := range variants {
		wg.Add(1)
		go func(i int, v Variant) {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			ro := opts.Run
			ro.Loaded, ro.ParentID = loaded[i], parent
			ro.Axes, _ = json.Marshal(v)
			ro.Out = io.Discard
			s, err := Execute(ctx, ro)
			child := SweepChild{Variant: v, Summary: s}
			if err != nil {
				child.Error = err.Error()
			}
			if s != nil {
				child.Values = showValues(ctx, store, s.RunID)
			}
			sum.Children[i] = child
		}(i, v)
	}
	wg.Wait()
	status := results.RunDone
	var firstErr error
	for _, c := range sum.Children {
		if c.Summary != nil {
			sum.Ran += c.Summary.Ran
			sum.Cached += c.Summary.Cached
		}
		if c.Error != "" && firstErr == nil {
			status, firstErr = results.RunFailed, fmt.Errorf("sweep variant %s: %s", c.Variant.Label(), c.Error)
		}
	}
	if ctx.Err() != nil {
		status = results.RunInterrupted
	}
	b, _ := json.Marshal(sum)
	if err := store.FinishRun(context.WithoutCancel(ctx), parent, status, string(b)); err != nil && firstErr == nil {
		firstErr = err
	}
	return sum, firstErr
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

// sweepColumns resolves the columns to print: the shown names, each the
// value key it names exactly, else every key ending in " "+name in sorted
// order ("overall" gives "agent overall" and "collective overall"); with
// nothing shown, every key of every child, sorted.
func sweepColumns(s *SweepSummary) []string {
	keys := map[string]bool{}
	for _, c := range s.Children {
		for k := range c.Values {
			keys[k] = true
		}
	}
	sorted := make([]string, 0, len(keys))
	for k := range keys {
		sorted = append(sorted, k)
	}
	sort.Strings(sorted)
	if len(s.Show) == 0 {
		return sorted
	}
	var cols []string
	for _, name := range s.Show {
		name = strings.ToLower(name)
		if keys[name] {
			cols = append(cols, name)
			continue
		}
		n := len(cols)
		for _, k := range sorted {
			if strings.HasSuffix(k, " "+name) {
				cols = append(cols, k)
			}
		}
		if len(cols) == n {
			cols = append(cols, name) // printed as "-"
		}
	}
	return cols
}

// PrintSweep renders the summary table: one row per variant, the axis
// values, then the shown columns. It is a function of the summary alone,
// whose values are a function of the database.
func PrintSweep(w io.Writer, s *SweepSummary) {
	cols := sweepColumns(s)
	fmt.Fprintf(w, "sweep %s: %d variants, %d units ran, %d cached\n", s.ParentID, len(s.Children), s.Ran, s.Cached)
	fmt.Fprintf(w, "%-48s %-24s", "VARIANT", "RUN")
	for _, c := range cols {
		fmt.Fprintf(w, " %14s", c)
	}
	fmt.Fprintln(w)
	for _, c := range s.Children {
		id := "-"
		if c.Summary != nil {
			id = c.Summary.RunID
		}
		fmt.Fprintf(w, "%-48s %-24s", c.Variant.Label(), id)
		for _, col := range cols {
			if v, ok := c.Values[col]; ok {
				fmt.Fprintf(w, " %14.2f", v)
			} else {
				fmt.Fprintf(w, " %14s", "-")
			}
		}
		if c.Error != "" {
			fmt.Fprintf(w, "  error: %s", firstLine(c.Error))
		}
		fmt.Fprintln(w)
	}
}
