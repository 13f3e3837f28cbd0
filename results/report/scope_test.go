package report

import (
	"context"
	"fmt"
	"testing"

	"mascot.dev/mascot/results"
)

// addTraining adds to run A what a pipeline's training stages record: 27
// branching episodes judged collectively and per agent, extra judgments of
// the evaluation episodes (Consistency 1 → 0 on c1), and a group
// comparison.
func addTraining(t *testing.T, s *results.Store) {
	t.Helper()
	ctx := context.Background()
	var evalEp int64
	if err := s.Reader().QueryRow(`SELECT id FROM episodes WHERE conv_id = 'c1'`).Scan(&evalEp); err != nil {
		t.Fatal(err)
	}
	var ids []int64
	gen := results.Unit{Fingerprint: "A-train-gen", Kind: "episodes", StageKey: "branch", RunID: "A"}
	err := s.CommitUnit(ctx, gen, func(tx *results.Tx) error {
		for i := range 27 {
			id, err := tx.InsertEpisode(results.Episode{Idx: i, ConvID: fmt.Sprintf("t%d", i), System: "mascot",
				Valence: "positive", Turns: []results.Turn{{AgentName: "The Anchor", Response: "r"}}})
			if err != nil {
				return err
			}
			ids = append(ids, id)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	judge := results.Unit{Fingerprint: "A-train-judge", Kind: "judge", StageKey: "judge_group", RunID: "A"}
	err = s.CommitUnit(ctx, judge, func(tx *results.Tx) error {
		js := []results.Judgment{{Judge: "j1", Criterion: "persona_consistency", Agent: "The Anchor", Score: 1, EpisodeID: evalEp}}
		for _, id := range ids {
			js = append(js,
				results.Judgment{Judge: "j1", Criterion: "persona_consistency", Agent: "The Anchor", Score: 1, EpisodeID: id},
				results.Judgment{Judge: "j1", Criterion: "fidelity", Score: 5, EpisodeID: id})
		}
		if _, err := tx.InsertJudgments(js); err != nil {
			return err
		}
		_, err := tx.InsertComparison(results.Comparison{Judge: "j1", ContextID: "g", Systems: []string{"mascot", "x"},
			Choice: "x"})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestReportScopedToUnits: a report restricted to the evaluation judge
// units gives fixture A's hand-computed numbers although the run also
// holds training judgments; the whole-run report does not.
func TestReportScopedToUnits(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	addRun(t, s, "A", fixtureA)
	addTraining(t, s)
	evalUnits, err := s.StageUnits(ctx, "A", []string{"judge"})
	if err != nil || len(evalUnits) != len(fixtureA) {
		t.Fatalf("eval units %v %v", evalUnits, err)
	}

	whole, err := Build(ctx, s, []string{"A"}, Options{Resamples: -1})
	if err != nil {
		t.Fatal(err)
	}
	tb, row := findRow(t, whole, results.LevelAgent, "mascot", "positive")
	// 4 eval + 27 training episodes; Consistency of c1 = mean(75, 0) = 37.5,
	// training episodes 0: (37.5+25+50+100 + 27·0)/31.
	if row.N != 31 {
		t.Fatalf("whole run: n = %d, want 31", row.N)
	}
	near(t, "whole-run consistency mean", cell(t, tb, row, "persona_consistency").Mean, 212.5/31)
	if wr, _ := WinRates(ctx, s, "A", 0); len(wr) != 2 {
		t.Fatalf("whole run: %d win rates, want 2", len(wr))
	}

	opts := Options{Resamples: 2000, Seed: 42, Units: evalUnits}
	rep, err := Build(ctx, s, []string{"A"}, opts)
	if err != nil {
		t.Fatal(err)
	}
	tb, row = findRow(t, rep, results.LevelAgent, "mascot", "positive")
	if row.N != 4 {
		t.Fatalf("scoped: n = %d, want 4", row.N)
	}
	emp, con, ov := cell(t, tb, row, "empathetic_support"), cell(t, tb, row, "persona_consistency"), cell(t, tb, row, Overall)
	near(t, "empathy mean", emp.Mean, 43.75)
	near(t, "consistency mean", con.Mean, 62.5)
	near(t, "overall mean", ov.Mean, 53.125)
	lo, hi := naiveBootstrapCI([]float64{75, 50, 25, 62.5}, 2000, 42, 0.95)
	near(t, "overall ci low", ov.CILow, lo)
	near(t, "overall ci high", ov.CIHigh, hi)
	tb, row = findRow(t, rep, results.LevelCollective, "mascot", "positive")
	if row.N != 4 {
		t.Fatalf("scoped collective: n = %d, want 4", row.N)
	}
	near(t, "fidelity mean", cell(t, tb, row, "fidelity").Mean, 46.875)
	if len(rep.WinRates) != 0 {
		t.Errorf("scoped report kept the training comparison: %+v", rep.WinRates)
	}

	// Scoped to the training units only: the 27 branching episodes and c1.
	train, err := Build(ctx, s, []string{"A"}, Options{Resamples: -1, Units: []string{"A-train-judge"}})
	if err != nil {
		t.Fatal(err)
	}
	_, row = findRow(t, train, results.LevelAgent, "mascot", "positive")
	if row.N != 28 {
		t.Errorf("training scope: n = %d, want 28", row.N)
	}
	if len(train.WinRates) != 2 {
		t.Errorf("training scope: %d win rates, want 2", len(train.WinRates))
	}
}

// TestSharedDrawsEqualSeparateBootstraps: Build bootstraps the rows of one
// system × split in one pass of draws; every cell must equal what a
// bootstrap of that row alone (the computation before batching) gives, bit
// for bit, including columns with missing values.
func TestSharedDrawsEqualSeparateBootstraps(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	eps := append([]judged{}, fixtureA...)
	for i := range 9 {
		e := judged{fmt.Sprintf("z%d", i), "zero-shot", []string{"positive", "negative"}[i%2],
			[]float64{float64(1 + i%5), float64(1 + (i*3)%5)}, float64(1 + (i*2)%5), []float64{float64(1 + (i*4)%5)}}
		if i%3 == 0 {
			e.fidelity = nil // missing collective values
		}
		eps = append(eps, e)
	}
	addRun(t, s, "A", eps)
	opts := Options{Resamples: 500, Seed: 7, All: true}
	rep, err := Build(ctx, s, []string{"A"}, opts)
	if err != nil {
		t.Fatal(err)
	}
	groups, err := s.ScoreGroups(ctx, "A", "auto")
	if err != nil {
		t.Fatal(err)
	}
	groups = append(groups, mergeSplits(groups)...)
	checked := 0
	for _, tb := range rep.Tables {
		for _, row := range tb.Rows {
			var g results.ScoreGroup
			for _, x := range groups {
				if x.Level == tb.Level && x.System == row.System && x.Split == row.Split {
					g = x
				}
			}
			m := sampleMatrix(g, tb.Criteria, tb.Level != results.LevelMetric)
			lo, hi := Bootstrap(m, len(tb.Criteria), opts.Resamples, opts.Seed, 0.95)
			for c := range tb.Criteria {
				if !sameFloat(row.Cells[c].CILow, lo[c]) || !sameFloat(row.Cells[c].CIHigh, hi[c]) {
					t.Errorf("%s %s/%s %s: CI [%v, %v], alone [%v, %v]", tb.Level, row.System, row.Split, tb.Criteria[c],
						row.Cells[c].CILow, row.Cells[c].CIHigh, lo[c], hi[c])
				}
				checked++
			}
		}
	}
	if checked < 20 {
		t.Fatalf("only %d cells checked", checked)
	}
}

func sameFloat(a, b float64) bool { return a == b || (a != a && b != b) }
