package web

import (
	"context"
	"html/template"
	"net/http"
	"slices"
	"strings"

	"mascot.dev/mascot/results"
	"mascot.dev/mascot/results/report"
)

// reportData is the paper-style tables of one run, and their bar charts.
type reportData struct {
	Run   results.Run
	R     *report.Report
	Plots []template.HTML
}

func (s *server) reportOptions(r *http.Request) report.Options {
	o := report.Options{SplitBy: r.URL.Query().Get("split"), Resamples: s.opts.Resample,
		IncludeTraining: r.URL.Query().Get("training") == "1"}
	if o.SplitBy == "" {
		o.SplitBy = "auto"
	}
	return o
}

// reportPage is GET /runs/{id}/report: the tables of `mascot report` with
// mean ± std and bootstrap CIs, and win rates (judges and humans), over the
// run's evaluation episodes; ?training=1 adds the training-time episodes in
// rows labelled with their mode.
func (s *server) reportPage(w http.ResponseWriter, r *http.Request) error {
	run, err := s.st.GetRun(r.Context(), r.PathValue("id"))
	if err != nil {
		return err
	}
	o := s.reportOptions(r)
	switch o.SplitBy {
	case "auto", "valence", "domain", "none":
	default:
		return badRequest("unknown split %q", o.SplitBy)
	}
	title := "Report of " + run.Name
	key := report.CacheKey("viewer-report/2", o, run.ID)
	v, ready, err := s.pending.await(r.Context(), key, s.opts.Patience, func(ctx context.Context) (any, error) {
		return report.Build(ctx, s.st, []string{run.ID}, o)
	})
	switch {
	case err != nil:
		return err
	case !ready:
		return s.renderComputing(w, title, "the report of "+run.Name)
	}
	rep := v.(*report.Report)
	d := reportData{Run: run, R: rep}
	figs, err := report.Figures(rep)
	if err != nil {
		return err
	}
	for _, f := range figs {
		d.Plots = append(d.Plots, f.HTML())
	}
	return s.render(w, "report", page{Title: title, Data: d})
}

// compareData is the comparison of runs, each later one against the
// first (or the form to pick them).
type compareData struct {
	Runs  []results.RunListEntry
	A     string
	B     []string
	Pairs []comparedPair
}

// comparedPair is the comparison of run A with one run B: what differs in
// their configs and stages, the paired deltas and their forest plots, and
// the conversations that changed most.
type comparedPair struct {
	C       *report.Comparison
	Diff    *results.RunDiff
	Plots   []template.HTML
	Changed []changedEpisode
}

// Picked says whether run id is among the B runs (for the form).
func (d compareData) Picked(id string) bool { return slices.Contains(d.B, id) }

// comparePage is GET /compare?a=RUN&b=RUN[&b=RUN...]: for each B, the
// resolved-config fields that differ from A and the stages that
// invalidates, per-criterion paired deltas with CIs and d_z (a table and a
// forest plot), counter deltas, and the conversations that changed most.
func (s *server) comparePage(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	d := compareData{A: r.URL.Query().Get("a")}
	for _, b := range r.URL.Query()["b"] {
		if b != "" {
			d.B = append(d.B, b)
		}
	}
	runs, err := s.st.ListRuns(ctx, results.RunFilter{Limit: 200})
	if err != nil {
		return err
	}
	d.Runs = runs
	title := "Compare runs"
	if d.A == "" || len(d.B) == 0 {
		return s.render(w, "compare", page{Title: title, Data: d})
	}
	ra, err := s.st.ResolveRun(ctx, d.A)
	if err != nil {
		return err
	}
	var names []string
	var bs []results.Run
	for _, ref := range d.B {
		rb, err := s.st.ResolveRun(ctx, ref)
		if err != nil {
			return err
		}
		bs, names = append(bs, rb), append(names, rb.Name)
	}
	title = "Compare " + ra.Name + " with " + strings.Join(names, ", ")
	for _, rb := range bs {
		o := s.reportOptions(r)
		key := report.CacheKey("viewer-compare/2", o, ra.ID, rb.ID)
		v, ready, err := s.pending.await(ctx, key, s.opts.Patience, func(ctx context.Context) (any, error) {
			res, err := report.Cached(ctx, s.st, key, []string{ra.ID, rb.ID},
				func() (comparedRuns, error) { return compareRuns(ctx, s.st, ra.ID, rb.ID, o) })
			if err != nil {
				return nil, err
			}
			c, err := report.ComparePaired(ctx, s.st, ra.ID, rb.ID, res.Paired, o)
			return comparePageResult{c, res.Changed}, err
		})
		switch {
		case err != nil:
			return err
		case !ready:
			return s.renderComputing(w, title, "the comparison of "+ra.Name+" with "+rb.Name)
		}
		res := v.(comparePageResult)
		p := comparedPair{C: res.c, Changed: res.changed}
		if p.Diff, err = s.st.DiffRuns(ctx, ra.ID, rb.ID); err != nil {
			return err
		}
		figs, err := report.ComparisonFigures(res.c)
		if err != nil {
			return err
		}
		for _, f := range figs {
			p.Plots = append(p.Plots, f.HTML())
		}
		d.Pairs = append(d.Pairs, p)
	}
	return s.render(w, "compare", page{Title: title, Data: d})
}

// comparePageResult is what the compare page shows of two runs.
type comparePageResult struct {
	c       *report.Comparison
	changed []changedEpisode
}

// comparedRuns is what the compare page computes from two runs' score
// groups, kept by the report cache.
type comparedRuns struct {
	Paired  report.Paired
	Changed []changedEpisode
}

func compareRuns(ctx context.Context, st *results.Store, a, b string, o report.Options) (comparedRuns, error) {
	ga, gb, err := report.ScoreGroupsOf(ctx, st, a, b, o)
	if err != nil {
		return comparedRuns{}, err
	}
	p, err := report.PairGroups(a, b, ga, gb, o)
	if err != nil {
		return comparedRuns{}, err
	}
	return comparedRuns{Paired: p, Changed: mostChangedOf(a, b, ga, gb, 10)}, nil
}
