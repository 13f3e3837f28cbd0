package web

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"mascot.dev/mascot/results"
	"mascot.dev/mascot/results/report"
)

// TestReportPageShowsSeveralJudges: with a second judge's scores of run-a's
// episodes (one point lower than gpt-4o's, floored at 1), the report page
// shows each judge's Overall in a column and the agreement table.
func TestReportPageShowsSeveralJudges(t *testing.T) {
	st := openStore(t)
	seed(t, st)
	addJudge(t, st, func(j *results.Judgment) { j.Score = max(1, j.Score-1) })
	h, err := NewHandler(st, Options{Resample: 200, PageSize: 4, Patience: time.Minute})
	must(t, err)
	srv := httptest.NewServer(h)
	defer srv.Close()
	code, body := get(t, srv, "/runs/run-a/report")
	if code != http.StatusOK {
		t.Fatalf("status %d:\n%s", code, body)
	}
	for _, want := range []string{"Collective Overall by judge", `<th class="num">gemma-3</th>`, `<th class="num">gpt-4o</th>`,
		`class="judge-agreement" data-level="collective"`, "Krippendorff", "ρ gemma-3 ~ gpt-4o"} {
		if !strings.Contains(body, want) {
			t.Errorf("report page lacks %q:\n%s", want, body)
		}
	}
}

// TestReportPageJudgeColumnsUseTheOneRule: the per-judge columns print
// with the decimals of the one rule (results/report format.go), as the
// terminal and markdown print them: a judge whose Overall lies below 10
// keeps its second decimal (6.25, not 6.2).
func TestReportPageJudgeColumnsUseTheOneRule(t *testing.T) {
	st := openStore(t)
	seed(t, st)
	ctx := context.Background()
	first := true
	addJudge(t, st, func(j *results.Judgment) {
		// The scale's floor but for one item: an Overall of a few points
		// on 0..100.
		j.Score = j.ScaleMin
		if first {
			j.Score, first = j.ScaleMin+(j.ScaleMax-j.ScaleMin)/10, false
		}
	})
	opts := Options{Resample: 200, PageSize: 4, Patience: time.Minute}
	h, err := NewHandler(st, opts)
	must(t, err)
	srv := httptest.NewServer(h)
	defer srv.Close()
	code, body := get(t, srv, "/runs/run-a/report")
	if code != http.StatusOK {
		t.Fatalf("status %d:\n%s", code, body)
	}
	rep, err := report.Build(ctx, st, []string{"run-a"}, report.Options{SplitBy: "auto", Resamples: opts.Resample})
	must(t, err)
	fine := 0
	for _, jt := range rep.Judges {
		for _, r := range jt.Rows {
			for _, c := range r.Cells {
				if c.N == 0 {
					continue
				}
				if want := report.FormatMeanStd(c); !strings.Contains(body, want) {
					t.Errorf("%s, %s: the page lacks %q (the terminal's cell)", r.System, jt.Level, want)
				}
				if report.Decimals(c.Mean, c.CILow, c.CIHigh) > 1 {
					fine++
				}
			}
		}
	}
	if fine == 0 {
		t.Fatal("no judge cell needs more than one decimal; the check is blind")
	}
}

// addJudge commits, as a second judge "gemma-3" of run-a, a copy of each
// gpt-4o judgment of run-a's episodes with its score rewritten by score.
func addJudge(t *testing.T, st *results.Store, score func(*results.Judgment)) {
	t.Helper()
	ctx := context.Background()
	eps, err := st.EpisodesForUnit(ctx, "gen-run-a")
	must(t, err)
	if len(eps) == 0 {
		t.Fatal("no episodes seeded for run-a")
	}
	second := results.Unit{Fingerprint: "judge2-run-a", Kind: "judge", StageKey: "judge2", RunID: "run-a"}
	must(t, st.CommitUnit(ctx, second, func(tx *results.Tx) error {
		for _, e := range eps {
			v, err := st.GetEpisodeView(ctx, e.ID, "run-a")
			if err != nil {
				return err
			}
			for _, j := range v.Judgments {
				if j.Judge != "gpt-4o" {
					continue
				}
				j.ID, j.UnitFP, j.Judge = 0, "", "gemma-3"
				score(&j)
				if _, err := tx.InsertJudgment(j); err != nil {
					return err
				}
			}
		}
		return nil
	}))
}
