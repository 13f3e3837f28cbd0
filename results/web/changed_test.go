package web

import (
	"context"
	"fmt"
	"testing"

	"mascot.dev/mascot/results"
	"mascot.dev/mascot/results/jsonl"
)

// TestMostChangedOrderIsTotal: episodes whose change ties on size and key
// (one conversation under two systems) come out in one order every time,
// not in the order of a map's iteration.
func TestMostChangedOrderIsTotal(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	for r, score := range map[string]float64{"a": 5, "b": 1} {
		must(t, st.CreateRun(ctx, results.Run{ID: r, Name: r}))
		for i, sys := range []string{"s1", "s2", "s3", "s4"} {
			var ep int64
			gen := results.Unit{Fingerprint: fmt.Sprintf("%s-gen-%d", r, i), Kind: "episodes", StageKey: "eval", RunID: r}
			must(t, st.CommitUnit(ctx, gen, func(tx *results.Tx) error {
				var err error
				ep, err = tx.InsertEpisode(results.Episode{System: sys, Mode: "eval",
					Record: jsonl.Record{ConvID: "c"}})
				return err
			}))
			judge := results.Unit{Fingerprint: fmt.Sprintf("%s-judge-%d", r, i), Kind: "judge", StageKey: "judge", RunID: r}
			must(t, st.CommitUnit(ctx, judge, func(tx *results.Tx) error {
				_, err := tx.InsertJudgments([]results.Judgment{{Judge: "j", Criterion: "fidelity", Score: score, EpisodeID: ep}})
				return err
			}))
		}
	}
	for range 20 {
		ga, err := st.ScoreGroups(ctx, "a", "none")
		must(t, err)
		gb, err := st.ScoreGroups(ctx, "b", "none")
		must(t, err)
		got := mostChangedOf("a", "b", ga, gb, 10)
		if len(got) != 4 {
			t.Fatalf("%d changed episodes, want 4", len(got))
		}
		for i, want := range []string{"s1", "s2", "s3", "s4"} {
			if got[i].System != want {
				t.Fatalf("order %v, want s1..s4", got)
			}
		}
	}
}
