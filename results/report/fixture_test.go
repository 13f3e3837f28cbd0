package report

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"mascot.dev/mascot/results"
	"mascot.dev/mascot/results/jsonl"
)

func openStore(t testing.TB) *results.Store {
	t.Helper()
	s, err := results.Open(filepath.Join(t.TempDir(), "r.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// judged describes one episode of the fixture: raw 1..5 scores per turn
// for empathetic_support (turn judgments), one agent-level
// persona_consistency score on the episode, and collective fidelity scores.
type judged struct {
	conv, system, valence string
	empathy               []float64 // one per turn
	consistency           float64
	fidelity              []float64 // one per judge
}

// addRun writes a run whose episodes and judgments are in two units each
// (generation and judging), the way the runner does.
func addRun(t testing.TB, s *results.Store, runID string, eps []judged) {
	t.Helper()
	ctx := context.Background()
	if err := s.CreateRun(ctx, results.Run{ID: runID, Name: runID}); err != nil {
		t.Fatal(err)
	}
	for i, e := range eps {
		gen := results.Unit{Fingerprint: fmt.Sprintf("%s-gen-%d", runID, i), Kind: "episodes", StageKey: "gen", RunID: runID}
		var epID int64
		var turnIDs []int64
		err := s.CommitUnit(ctx, gen, func(tx *results.Tx) error {
			ep := results.Episode{System: e.system, Dataset: "empathetic_dialogues", Valence: e.valence,
				Record: jsonl.Record{ConvID: e.conv}}
			for k := range e.empathy {
				ep.Turns = append(ep.Turns, results.Turn{TurnIdx: k, AgentName: "The Anchor", Response: "r"})
			}
			var err error
			if epID, err = tx.InsertEpisode(ep); err != nil {
				return err
			}
			return tx.SQL().QueryRow(`SELECT json_group_array(id) FROM (SELECT id FROM turns WHERE episode_id = ? ORDER BY turn_idx)`, epID).
				Scan(jsonInts{&turnIDs})
		})
		if err != nil {
			t.Fatal(err)
		}
		judge := results.Unit{Fingerprint: fmt.Sprintf("%s-judge-%d", runID, i), Kind: "judge", StageKey: "judge", RunID: runID}
		err = s.CommitUnit(ctx, judge, func(tx *results.Tx) error {
			var js []results.Judgment
			for k, sc := range e.empathy {
				js = append(js, results.Judgment{Judge: "j1", Criterion: "empathetic_support", Score: sc, TurnID: turnIDs[k]})
			}
			js = append(js, results.Judgment{Judge: "j1", Criterion: "persona_consistency", Agent: "The Anchor", Score: e.consistency, EpisodeID: epID})
			for k, sc := range e.fidelity {
				js = append(js, results.Judgment{Judge: fmt.Sprintf("j%d", k), Criterion: "fidelity", Score: sc, EpisodeID: epID})
			}
			_, err := tx.InsertJudgments(js)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}
