package results

import (
	"context"
	"fmt"
	"reflect"
	"testing"
)

// TestStageInputsIndependentOfStorageOrder: the rows a training or pairs
// stage reads come in the same order from two databases that hold the
// same rows under different ids (their units committed in another
// order), so a stage trains on the same data order in both.
func TestStageInputsIndependentOfStorageOrder(t *testing.T) {
	ctx := context.Background()
	read := func(order []int) ([]PairText, []JudgmentRow) {
		s := openTemp(t)
		mustRun(t, s, "r")
		ids := map[string]int64{}
		for _, u := range order {
			fp := fmt.Sprintf("cand-%d", u)
			err := s.CommitUnit(ctx, Unit{Fingerprint: fp, Kind: "candidates", StageKey: "cand", RunID: "r"}, func(tx *Tx) error {
				for i := range 3 {
					id, err := tx.InsertCandidate(Candidate{ContextID: fmt.Sprintf("x%d", u), Persona: "A", SampleIdx: i,
						Prompt: fmt.Sprintf("p%d", u), Text: fmt.Sprintf("t%d-%d", u, i)})
					if err != nil {
						return err
					}
					ids[fmt.Sprintf("%d/%d", u, i)] = id
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		}
		err := s.CommitUnit(ctx, Unit{Fingerprint: "judge", Kind: "judge", StageKey: "judge", RunID: "r"}, func(tx *Tx) error {
			var js []Judgment
			for _, u := range order {
				for i := range 3 {
					js = append(js, Judgment{Judge: "j", Criterion: "a", Score: float64(1 + (u+i)%5), CandidateID: ids[fmt.Sprintf("%d/%d", u, i)]})
				}
			}
			_, err := tx.InsertJudgments(js)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		for _, u := range order {
			err := s.CommitUnit(ctx, Unit{Fingerprint: fmt.Sprintf("pairs-%d", u), Kind: "pairs", StageKey: "pairs", RunID: "r"},
				func(tx *Tx) error {
					_, err := tx.InsertPairs([]Pair{
						{ContextID: "x", Persona: "A", ChosenID: ids[fmt.Sprintf("%d/0", u)], RejectedID: ids[fmt.Sprintf("%d/1", u)], Margin: 1},
						{ContextID: "x", Persona: "A", ChosenID: ids[fmt.Sprintf("%d/2", u)], RejectedID: ids[fmt.Sprintf("%d/1", u)], Margin: 2},
					})
					return err
				})
			if err != nil {
				t.Fatal(err)
			}
		}
		pairs, err := s.PairTexts(ctx, []string{"pairs-0", "pairs-1", "pairs-2"})
		if err != nil {
			t.Fatal(err)
		}
		judged, err := s.JudgedCandidateRows(ctx, []string{"judge"})
		if err != nil {
			t.Fatal(err)
		}
		for i := range judged {
			judged[i].ID = 0 // ids differ by design
		}
		return pairs, judged
	}
	pa, ja := read([]int{0, 1, 2})
	pb, jb := read([]int{2, 0, 1})
	if len(pa) != 6 || len(ja) != 9 {
		t.Fatalf("%d pairs and %d judgment rows, want 6 and 9", len(pa), len(ja))
	}
	if !reflect.DeepEqual(pa, pb) {
		t.Fatalf("pairs come in storage order:\n%v\n%v", pa, pb)
	}
	if !reflect.DeepEqual(ja, jb) {
		t.Fatalf("judged candidates come in storage order:\n%v\n%v", ja, jb)
	}
}
