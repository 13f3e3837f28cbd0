package pairs_test

import (
	"context"
	"path/filepath"
	"testing"

	"mascot.dev/mascot/internal/testspec"
	"mascot.dev/mascot/results"
	"mascot.dev/mascot/runner"
	_ "mascot.dev/mascot/runner/stages/all" // every built-in stage kind
	_ "mascot.dev/mascot/runner/stages/pairs"
	"mascot.dev/mascot/schema"
)

// criterionScores are the 1–5 judge scores of six candidates on five
// criteria. Their means are 2.8, 1.8, 2.5, 3.0, 4.6 and 3.6: the gaps
// 2.8−1.8 and 4.6−3.6 equal the margin 1.0 exactly, though in float64 they
// are 0.9999999999999998 and 0.9999999999999996.
var criterionScores = [][]float64{
	{3, 3, 3, 3, 2},
	{2, 2, 2, 2, 1},
	{3, 3, 2, 2, 2.5},
	{3, 3, 3, 3, 3},
	{5, 5, 5, 4, 4},
	{4, 4, 4, 3, 3},
}

var criteria = []string{"a", "b", "c", "d", "e"}

// fakeKind builds a stand-in stage with one unit that commits fn's rows.
func fakeKind(fn func(env *runner.Env, tx *results.Tx) error) func(*runner.Env, schema.Stage) (runner.Stage, error) {
	return func(env *runner.Env, st schema.Stage) (runner.Stage, error) { return fakeStage{env, fn}, nil }
}

type fakeStage struct {
	env *runner.Env
	fn  func(env *runner.Env, tx *results.Tx) error
}

func (fakeStage) Units(ctx context.Context) ([]runner.Unit, error) {
	return []runner.Unit{{Key: "all", Inputs: "fixed"}}, nil
}

func (f fakeStage) Run(ctx context.Context, u runner.Unit) (runner.Commit, error) {
	return func(tx *results.Tx) error { return f.fn(f.env, tx) }, nil
}

// TestGapEqualToMarginIsKept runs a pairs stage with margin 1.0 over
// stored judgments (criterionScores): exactly the pairs with a gap of at
// least 1 are kept, the two gaps of exactly 1 included, and the stored
// margins are exact.
func TestGapEqualToMarginIsKept(t *testing.T) {
	src := `package spec

import "mascot.dev/experiments/personas"

name: "test/pairs"
datasets: es: {name: "esconv", path: "` + testspec.ESConv + `", limit: 1}
rosters: support: personas.emotional_support
endpoints: speaker: {urls: ["http://127.0.0.1:9/v1"], model: "none"}
judges: rubric: {plugin: "rubric", endpoint: "speaker"}
stages: {
	cand: {kind: "candidates", dataset: "es", roster: "support", k: 6}
	judge_cand: {kind: "judge", items: "cand", judges: ["rubric"]}
	pairs: {kind: "pairs", judged: "judge_cand", margin: 1.0}
}
`
	l := testspec.Load(t, src)
	store, err := results.Open(filepath.Join(t.TempDir(), "m.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	cand := fakeKind(func(_ *runner.Env, tx *results.Tx) error {
		cs := make([]results.Candidate, len(criterionScores))
		for i := range cs {
			cs[i] = results.Candidate{ContextID: "c1", Persona: "p", SampleIdx: i, Prompt: "[]", Text: "reply"}
		}
		_, err := tx.InsertCandidates(cs)
		return err
	})
	judge := fakeKind(func(env *runner.Env, tx *results.Tx) error {
		rows, err := env.Store.Reader().Query(`SELECT id FROM candidates ORDER BY sample_idx`)
		if err != nil {
			return err
		}
		defer rows.Close()
		var ids []int64
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				return err
			}
			ids = append(ids, id)
		}
		if err := rows.Err(); err != nil {
			return err
		}
		var js []results.Judgment
		for i, scores := range criterionScores {
			for k, s := range scores {
				js = append(js, results.Judgment{Judge: "rubric", Criterion: criteria[k], Score: s, CandidateID: ids[i]})
			}
		}
		_, err = tx.InsertJudgments(js)
		return err
	})
	if _, err := runner.Execute(context.Background(), runner.Options{Loaded: l, Store: store, RunsDir: t.TempDir(),
		Registry: runner.Default.WithStage("candidates", "test", cand).WithStage("judge", "test", judge)}); err != nil {
		t.Fatal(err)
	}
	rows, err := store.Reader().Query(`SELECT c1.sample_idx, c2.sample_idx, p.margin FROM pairs p
		JOIN candidates c1 ON c1.id = p.chosen_id JOIN candidates c2 ON c2.id = p.rejected_id
		ORDER BY c1.sample_idx, c2.sample_idx`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	type pair struct {
		chosen, rejected int
		margin           float64
	}
	var got []pair
	for rows.Next() {
		var p pair
		if err := rows.Scan(&p.chosen, &p.rejected, &p.margin); err != nil {
			t.Fatal(err)
		}
		got = append(got, p)
	}
	// Means 2.8 (0), 1.8 (1), 2.5 (2), 3.0 (3), 4.6 (4), 3.6 (5).
	want := []pair{{0, 1, 1}, {3, 1, 1.2}, {4, 0, 1.8}, {4, 1, 2.8}, {4, 2, 2.1}, {4, 3, 1.6}, {4, 5, 1},
		{5, 1, 1.8}, {5, 2, 1.1}}
	if len(got) != len(want) {
		t.Fatalf("pairs %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("pair %d = %v, want %v", i, got[i], want[i])
		}
	}
}
