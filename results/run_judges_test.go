package results_test

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"mascot.dev/mascot/results"
	"mascot.dev/mascot/results/jsonl"
)

// TestRunJudges: the distinct judges of a run's judgments (candidates
// aside) come from the units' score sums, and from the rows of a unit
// whose sums were dropped, so the report can skip reading every score of
// a one-judge run.
func TestRunJudges(t *testing.T) {
	ctx := context.Background()
	s, err := results.Open(filepath.Join(t.TempDir(), "r.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.CreateRun(ctx, results.Run{ID: "r"}); err != nil {
		t.Fatal(err)
	}
	var ep int64
	gen := results.Unit{Fingerprint: "g", Kind: "episodes", StageKey: "g", RunID: "r"}
	if err := s.CommitUnit(ctx, gen, func(tx *results.Tx) error {
		ep, err = tx.InsertEpisode(results.Episode{System: "mascot", Record: jsonl.Record{ConvID: "c"}})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	judge := func(fp string, judges ...string) {
		t.Helper()
		u := results.Unit{Fingerprint: fp, Kind: "judge", StageKey: fp, RunID: "r"}
		if err := s.CommitUnit(ctx, u, func(tx *results.Tx) error {
			var js []results.Judgment
			for _, j := range judges {
				js = append(js, results.Judgment{Judge: j, Criterion: "empathy", Score: 3, EpisodeID: ep})
			}
			_, err := tx.InsertJudgments(js)
			return err
		}); err != nil {
			t.Fatal(err)
		}
	}
	got := func() []string {
		t.Helper()
		js, err := s.RunJudges(ctx, "r", results.Scope{})
		if err != nil {
			t.Fatal(err)
		}
		return js
	}
	judge("j1", "rubric/m", "rubric")
	if js := got(); !slices.Equal(js, []string{"rubric", "rubric/m"}) {
		t.Fatalf("one judge unit: %v", js)
	}
	judge("j2", "other")
	if js := got(); !slices.Equal(js, []string{"other", "rubric", "rubric/m"}) {
		t.Fatalf("two judge units: %v", js)
	}
	// A unit without score sums (dropped, as a later write to its rows
	// does) is read from its rows.
	if err := s.ForgetUnitScoresForTest(ctx, "j2"); err != nil {
		t.Fatal(err)
	}
	if js := got(); !slices.Equal(js, []string{"other", "rubric", "rubric/m"}) {
		t.Fatalf("without j2's sums: %v", js)
	}
	if js, err := s.RunJudges(ctx, "r", results.Scope{Units: []string{"j1"}}); err != nil || !slices.Equal(js, []string{"rubric", "rubric/m"}) {
		t.Fatalf("scoped to j1: %v %v", js, err)
	}
}
