package report

import (
	"context"
	"slices"
	"testing"

	"mascot.dev/mascot/experiments/prompts"
	"mascot.dev/mascot/results"
	"mascot.dev/mascot/results/jsonl"
)

// TestColumnsFollowTheRubric: the per-agent and collective tables list the
// criteria in the order of the rubric definition (criteria.cue, the
// paper's order), whatever order the judgments were stored in, with
// Overall last; the markdown header shows the rubric's names.
func TestColumnsFollowTheRubric(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	if err := s.CreateRun(ctx, results.Run{ID: "R", Name: "R"}); err != nil {
		t.Fatal(err)
	}
	rubric := prompts.Paper()
	var epID, turnID int64
	gen := results.Unit{Fingerprint: "R-gen", Kind: "episodes", StageKey: "eval", RunID: "R"}
	err := s.CommitUnit(ctx, gen, func(tx *results.Tx) error {
		var err error
		epID, err = tx.InsertEpisode(results.Episode{System: "mascot", Mode: "eval",
			Record: jsonl.Record{ConvID: "c", Turns: []results.Turn{{AgentName: "The Anchor", Response: "r"}}}})
		if err != nil {
			return err
		}
		return tx.SQL().QueryRow(`SELECT id FROM turns WHERE episode_id = ?`, epID).Scan(&turnID)
	})
	if err != nil {
		t.Fatal(err)
	}
	judge := results.Unit{Fingerprint: "R-judge", Kind: "judge", StageKey: "judge_eval", RunID: "R"}
	err = s.CommitUnit(ctx, judge, func(tx *results.Tx) error {
		var js []results.Judgment
		for _, c := range slices.Backward(rubric.Agent) {
			js = append(js, results.Judgment{Judge: "j", Criterion: c.ID, Score: 3, TurnID: turnID})
		}
		for _, c := range slices.Backward(rubric.Collective) {
			js = append(js, results.Judgment{Judge: "j", Criterion: c.ID, Score: 3, EpisodeID: epID})
		}
		_, err := tx.InsertJudgments(js)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Build(ctx, s, []string{"R"}, Options{Resamples: -1})
	if err != nil {
		t.Fatal(err)
	}
	for _, lv := range []struct {
		level string
		cs    []prompts.Criterion
	}{{results.LevelAgent, rubric.Agent}, {results.LevelCollective, rubric.Collective}} {
		var want []string
		for _, c := range lv.cs {
			want = append(want, c.ID)
		}
		want = append(want, Overall)
		tb, _ := findRow(t, rep, lv.level, "mascot", "all")
		if !slices.Equal(tb.Criteria, want) {
			t.Errorf("%s columns %v, want the rubric's order %v", lv.level, tb.Criteria, want)
		}
	}
}
