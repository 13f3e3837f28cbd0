package report

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"mascot.dev/mascot/results"
	"mascot.dev/mascot/results/jsonl"
)

// addTraining adds to run A what a pipeline's training stages record: 27
// branching episodes judged collectively and per agent, an extra judgment
// of an evaluation episode (persona_consistency 1 → 0 on c1), and a
// comparison of two branching episodes.
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
			id, err := tx.InsertEpisode(results.Episode{Idx: i, System: "mascot", Valence: "positive", Mode: results.ModeBranching,
				Record: jsonl.Record{ConvID: fmt.Sprintf("t%d", i), Turns: []results.Turn{{AgentName: "The Anchor", Response: "r"}}}})
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
			EpisodeIDs: ids[:2], Choice: "x"})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestWholeRunReportIsEvaluation: a run's report covers its evaluation
// episodes by default: the 27 branching episodes of its training stages
// neither count in N nor move the means, and their comparison is not
// tallied. Asked for, they come as rows and win rates of their own,
// labelled with their mode.
func TestWholeRunReportIsEvaluation(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	addRun(t, s, "A", fixtureA)
	addTraining(t, s)

	whole, err := Build(ctx, s, []string{"A"}, Options{Resamples: -1})
	if err != nil {
		t.Fatal(err)
	}
	for _, tb := range whole.Tables {
		for _, r := range tb.Rows {
			if r.Population != "" || r.N > 4 {
				t.Errorf("%s row %s/%s/%q: n = %d, want evaluation rows of at most 4", tb.Level, r.System, r.Split,
					r.Population, r.N)
			}
		}
	}
	tb, row := findRow(t, whole, results.LevelAgent, "mascot", "positive")
	// persona_consistency of c1 = mean(75, 0) (a training judge also judged it).
	near(t, "consistency mean", cell(t, tb, row, "persona_consistency").Mean, (37.5+25+50+100)/4)
	tb, row = findRow(t, whole, results.LevelCollective, "mascot", "positive")
	near(t, "fidelity mean", cell(t, tb, row, "fidelity").Mean, 46.875)
	if len(whole.WinRates) != 0 {
		t.Errorf("whole run tallied the training comparison: %+v", whole.WinRates)
	}

	with, err := Build(ctx, s, []string{"A"}, Options{Resamples: -1, IncludeTraining: true})
	if err != nil {
		t.Fatal(err)
	}
	tb, row = findRow(t, with, results.LevelAgent, "mascot", "positive")
	if row.N != 4 {
		t.Errorf("with training: evaluation n = %d, want 4", row.N)
	}
	tr := findPopulationRow(t, with, results.LevelAgent, results.ModeBranching)
	if tr.N != 27 || tr.System != "mascot" || cell(t, tb, tr, "persona_consistency").Mean != 0 {
		t.Errorf("training row %+v, want 27 branching episodes scored 0", tr)
	}
	if len(with.WinRates) != 2 || with.WinRates[0].Population != results.ModeBranching {
		t.Errorf("with training: win rates %+v, want 2 labelled branching", with.WinRates)
	}
	var md bytes.Buffer
	if err := Render(&md, with, FormatMarkdown); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "| mascot (training: branching) | positive | 27 |") {
		t.Errorf("markdown does not label the training row:\n%s", md.String())
	}
}

// findPopulationRow returns the row of a level's table holding the given
// population.
func findPopulationRow(t *testing.T, rep *Report, level, population string) Row {
	t.Helper()
	for _, tb := range rep.Tables {
		if tb.Level != level {
			continue
		}
		for _, r := range tb.Rows {
			if r.Population == population {
				return r
			}
		}
	}
	t.Fatalf("no %s row of population %q", level, population)
	return Row{}
}

// TestReportScopedToUnits: a report restricted to the evaluation judge
// units gives fixture A's hand-computed numbers although the run also
// holds training judgments; restricted to a training unit, it shows what
// that unit scored, training episodes in rows of their own.
func TestReportScopedToUnits(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	addRun(t, s, "A", fixtureA)
	addTraining(t, s)
	evalUnits, err := s.StageUnits(ctx, "A", []string{"judge"})
	if err != nil || len(evalUnits) != len(fixtureA) {
		t.Fatalf("eval units %v %v", evalUnits, err)
	}

	opts := Options{Resamples: 2000, Seed: 42, Units: evalUnits}
	rep, err := Build(ctx, s, []string{"A"}, opts)
	if err != nil {
		t.Fatal(err)
	}
	tb, row := findRow(t, rep, results.LevelAgent, "mascot", "positive")
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

	// Scoped to the training unit only: c1, and the 27 branching episodes
	// in a row of their own.
	train, err := Build(ctx, s, []string{"A"}, Options{Resamples: -1, Units: []string{"A-train-judge"}})
	if err != nil {
		t.Fatal(err)
	}
	_, row = findRow(t, train, results.LevelAgent, "mascot", "positive")
	if row.N != 1 {
		t.Errorf("training scope: evaluation n = %d, want 1 (c1)", row.N)
	}
	if tr := findPopulationRow(t, train, results.LevelAgent, results.ModeBranching); tr.N != 27 {
		t.Errorf("training scope: branching n = %d, want 27", tr.N)
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
					g = canonical(x)
				}
			}
			m := sampleMatrix(g, tb.Criteria, tb.Level != results.LevelMetric)
			lo, hi := BootstrapStream(m, len(tb.Criteria), opts.Resamples, opts.Seed, drawStream(g.Keys), 0.95)
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

// TestRunWithoutEvaluationEpisodes: a run whose episodes all keep the
// default mode (independent) has no evaluation population; its report
// shows those episodes, labelled, instead of nothing.
func TestRunWithoutEvaluationEpisodes(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	if err := s.CreateRun(ctx, results.Run{ID: "I", Name: "I"}); err != nil {
		t.Fatal(err)
	}
	var ids []int64
	gen := results.Unit{Fingerprint: "I-gen", Kind: "episodes", StageKey: "ep", RunID: "I"}
	err := s.CommitUnit(ctx, gen, func(tx *results.Tx) error {
		for i := range 3 {
			id, err := tx.InsertEpisode(results.Episode{Idx: i, System: "mascot", Mode: results.ModeIndependent,
				Record: jsonl.Record{ConvID: fmt.Sprintf("c%d", i)}})
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
	judge := results.Unit{Fingerprint: "I-judge", Kind: "judge", StageKey: "judge", RunID: "I"}
	err = s.CommitUnit(ctx, judge, func(tx *results.Tx) error {
		var js []results.Judgment
		for _, id := range ids {
			js = append(js, results.Judgment{Judge: "j", Criterion: "fidelity", Score: 5, EpisodeID: id})
		}
		_, err := tx.InsertJudgments(js)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Build(ctx, s, []string{"I"}, Options{Resamples: -1})
	if err != nil {
		t.Fatal(err)
	}
	if r := findPopulationRow(t, rep, results.LevelCollective, results.ModeIndependent); r.N != 3 || r.Cells[0].Mean != 100 {
		t.Errorf("row %+v, want the 3 independent episodes at 100", r)
	}
}
