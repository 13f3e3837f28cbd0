package web

import (
	"context"
	"net/http"

	"mascot.dev/mascot/results"
	"mascot.dev/mascot/results/report"
)

// reportData is the paper-style tables of one run.
type reportData struct {
	Run results.Run
	R   *report.Report
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
	return s.render(w, "report", page{Title: title, Data: reportData{Run: run, R: v.(*report.Report)}})
}

// compareData is the comparison of two runs (or the form to pick them).
type compareData struct {
	Runs    []results.RunListEntry
	A, B    string
	C       *report.Comparison
	Changed []changedEpisode
}

// comparePage is GET /compare?a=RUN&b=RUN: per-criterion paired deltas with
// CIs and d_z, counter deltas, and the conversations that changed most.
func (s *server) comparePage(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	d := compareData{A: r.URL.Query().Get("a"), B: r.URL.Query().Get("b")}
	runs, err := s.st.ListRuns(ctx, results.RunFilter{Limit: 200})
	if err != nil {
		return err
	}
	d.Runs = runs
	title := "Compare runs"
	if d.A != "" && d.B != "" {
		ra, err := s.st.ResolveRun(ctx, d.A)
		if err != nil {
			return err
		}
		rb, err := s.st.ResolveRun(ctx, d.B)
		if err != nil {
			return err
		}
		o := s.reportOptions(r)
		title = "Compare " + ra.Name + " with " + rb.Name
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
		d.C, d.Changed = res.c, res.changed
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
