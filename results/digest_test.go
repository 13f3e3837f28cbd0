package results

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
)

// TestStageDigestsIgnoreIDs: two databases holding the same results under
// other row ids (one had other rows first) give equal stage digests, row
// ids inside JSON included; another score changes the judge stage's
// digest and only that.
func TestStageDigestsIgnoreIDs(t *testing.T) {
	ctx := context.Background()
	build := func(shift int, score float64) []StageDigest {
		s := openTemp(t)
		mustRun(t, s, "r")
		mustRun(t, s, "other")
		for i := range shift { // rows of another run first: every id moves
			err := s.CommitUnit(ctx, Unit{Fingerprint: fmt.Sprintf("noise-%d", i), Kind: "episodes", StageKey: "x", RunID: "other"},
				func(tx *Tx) error {
					_, err := tx.InsertEpisode(sampleEpisode(fmt.Sprintf("n%d", i)))
					return err
				})
			if err != nil {
				t.Fatal(err)
			}
		}
		var root, child int64
		err := s.CommitUnit(ctx, Unit{Fingerprint: "eps", Kind: "episodes", StageKey: "branching", RunID: "r"}, func(tx *Tx) error {
			e := sampleEpisode("c1")
			var err error
			if root, err = tx.InsertEpisode(e); err != nil {
				return err
			}
			e.Idx = 1
			e.Metadata.Extra = map[string]json.RawMessage{"branch": json.RawMessage(fmt.Sprintf(`{"node":1,"parent_episode_id":%d}`, root))}
			child, err = tx.InsertEpisode(e)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		err = s.CommitUnit(ctx, Unit{Fingerprint: "gp", Kind: "pairs", StageKey: "group_pairs", RunID: "r"}, func(tx *Tx) error {
			var ids []int64
			for i, ep := range []int64{root, child} {
				id, err := tx.InsertCandidate(Candidate{Kind: "block", ContextID: "c1", SampleIdx: i, Text: "t",
					Meta: json.RawMessage(fmt.Sprintf(`{"episode_id":%d,"system":"mascot"}`, ep))})
				if err != nil {
					return err
				}
				ids = append(ids, id)
			}
			if _, err := tx.InsertJudgments([]Judgment{{Judge: "j", Criterion: "fidelity", Score: score, EpisodeID: child}}); err != nil {
				return err
			}
			_, err := tx.InsertPairs([]Pair{{ContextID: "c1", ChosenID: ids[1], RejectedID: ids[0], Margin: 1}})
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		ds, err := s.StageDigests(ctx, "r")
		if err != nil {
			t.Fatal(err)
		}
		return ds
	}
	a, b, c := build(0, 4), build(3, 4), build(0, 5)
	if len(a) != 2 || a[0].Rows["episodes"] != 2 || a[1].Rows["pairs"] != 1 || a[1].Rows["candidates"] != 2 {
		t.Fatalf("digests %+v", a)
	}
	for i := range a {
		if !a[i].Same(b[i]) {
			t.Errorf("stage %s: other row ids change its digest: %s", a[i].Key, a[i].Differences(b[i]))
		}
	}
	if !a[0].Same(c[0]) || a[1].Same(c[1]) {
		t.Errorf("another score: branching same %v (want true), group_pairs same %v (want false)", a[0].Same(c[0]), a[1].Same(c[1]))
	}
}
