package report

import (
	"math"
	"slices"
	"testing"

	"mascot.dev/mascot/results"
)

// TestJudgeColumns: a lone model stands under its judge's name, a pool of
// several models is one column per model, a judge without model rows is
// itself.
func TestJudgeColumns(t *testing.T) {
	names := map[string]bool{"gemma": true, "gemma/judge_gemma": true, // one model
		"rubric": true, "rubric/gpt-4o": true, "rubric/phi-4": true, // a pool of two
		"lexical": true} // no model rows
	cols, of := judgeColumns(names)
	if want := []string{"gemma", "lexical", "rubric/gpt-4o", "rubric/phi-4"}; !slices.Equal(cols, want) {
		t.Fatalf("columns %v, want %v", cols, want)
	}
	if _, ok := of["rubric"]; ok {
		t.Error("the pooled rows of rubric are a column")
	}
	if _, ok := of["gemma/judge_gemma"]; ok {
		t.Error("a lone model's copy of its judge's rows is read twice")
	}
	if cols, _ := judgeColumns(map[string]bool{"rubric": true, "rubric/judge": true}); len(cols) != 1 {
		t.Errorf("one judge with one model gives columns %v", cols)
	}
}

// TestJudgeTablesNeedTwoJudges: one judge gives no judge table; two give
// one whose agreement skips items only one judge scored.
func TestJudgeTablesNeedTwoJudges(t *testing.T) {
	groups := []results.ScoreGroup{{Level: results.LevelCollective, System: "mascot", Split: "all",
		Criteria: []string{"fidelity"}, Episodes: []int64{1, 2, 3}, Keys: []string{"a#0", "b#0", "c#0"},
		Values: [][]float64{{0, 50, 100}}}}
	js := func(judge string, ep int64, v float64) results.JudgeScore {
		return results.JudgeScore{Level: results.LevelCollective, Judge: judge, Criterion: "fidelity", Episode: ep,
			Item: "mascot\x1feval\x1f" + string(rune('a'+ep-1)) + "#0\x1f", Value: v}
	}
	one := []results.JudgeScore{js("a", 1, 0), js("a", 2, 50), js("a", 3, 100)}
	if got := judgeTablesOf("r", groups, one, Options{Resamples: -1}); len(got) != 0 {
		t.Fatalf("one judge: %d judge tables", len(got))
	}
	two := append(one, js("b", 1, 25), js("b", 2, 75)) // b did not score episode 3
	got := judgeTablesOf("r", groups, two, Options{Resamples: -1})
	if len(got) != 1 {
		t.Fatalf("two judges: %d judge tables", len(got))
	}
	a := got[0].Agreement[0]
	if a.Criterion != "fidelity" || a.Items != 2 || a.Values != 4 || a.Pairs[0].N != 2 || a.Pairs[0].Rho != 1 {
		t.Fatalf("agreement %+v", a)
	}
	// Units (0, 25) and (50, 75): Do = (625+625)·2/4 = 625; the four values
	// 0, 25, 50, 75 have Σ(x−37.5)² = 3125, De = 2·3125/3: alpha = 1 − 625·3/6250.
	if want := 1 - 625.0*3/6250; math.Abs(a.Alpha-want) > 1e-12 {
		t.Errorf("alpha %v, want %v", a.Alpha, want)
	}
	r := got[0].Rows[0]
	if r.Cells[0].N != 3 || r.Cells[1].N != 2 || r.Cells[1].Mean != 50 {
		t.Errorf("per-judge cells %+v", r.Cells)
	}
}
