package report

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"mascot.dev/mascot/results"
	"mascot.dev/mascot/results/jsonl"
)

// orderFixture is the episodes of one run: three systems, two valences,
// five to eight episodes each, per-turn scores 1..5, an agent score and
// three judges' fidelity scores on a 1..10 scale, so that per-episode
// values are fractions whose sums depend on the order they are added in.
func orderFixture() []judged {
	r := rand.New(rand.NewPCG(7, 11))
	var eps []judged
	for _, sys := range []string{"mascot", "zero-shot", "few-shot"} {
		for _, val := range []string{"positive", "negative"} {
			for i := range 5 + r.IntN(4) {
				e := judged{conv: fmt.Sprintf("%s-%s-%d", sys[:2], val[:3], i), system: sys, valence: val,
					consistency: float64(1 + r.IntN(5))}
				for range 2 + r.IntN(3) {
					e.empathy = append(e.empathy, float64(1+r.IntN(5)))
				}
				for range 3 {
					e.fidelity = append(e.fidelity, float64(1+r.IntN(5)))
				}
				eps = append(eps, e)
			}
		}
	}
	return eps
}

// addRunOrdered writes a run like addRun, its units committed in the order
// perm gives and every unit's judgments in a shuffled order, with unit
// fingerprints that name the run and episode (not its position), so that two calls
// with different permutations store the same rows under different ids.
func addRunOrdered(t *testing.T, s *results.Store, runID string, eps []judged, perm []int, r *rand.Rand) {
	t.Helper()
	ctx := context.Background()
	if err := s.CreateRun(ctx, results.Run{ID: runID, Name: runID}); err != nil {
		t.Fatal(err)
	}
	for _, i := range perm {
		e := eps[i]
		gen := results.Unit{Fingerprint: runID + "-gen-" + e.conv, Kind: "episodes", StageKey: "gen", RunID: runID}
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
		var js []results.Judgment
		for k, sc := range e.empathy {
			js = append(js, results.Judgment{Judge: "j1", Criterion: "empathetic_support", Score: sc, TurnID: turnIDs[k]})
		}
		js = append(js, results.Judgment{Judge: "j1", Criterion: "persona_consistency", Agent: "The Anchor", Score: e.consistency, EpisodeID: epID})
		for k, sc := range e.fidelity {
			js = append(js, results.Judgment{Judge: fmt.Sprintf("j%d", k), Criterion: "fidelity", Score: sc, EpisodeID: epID})
		}
		r.Shuffle(len(js), func(a, b int) { js[a], js[b] = js[b], js[a] })
		judge := results.Unit{Fingerprint: runID + "-judge-" + e.conv, Kind: "judge", StageKey: "judge", RunID: runID}
		if err := s.CommitUnit(ctx, judge, func(tx *results.Tx) error {
			if _, err := tx.InsertJudgments(js); err != nil {
				return err
			}
			// A 0–1 metric whose per-episode values are thirds and sevenths:
			// its sums, too, depend on the order they are added in.
			_, err := tx.InsertMetric(results.Metric{EpisodeID: epID, Name: "distinct_1",
				Value: float64(len(e.empathy))/7 + e.consistency/3 - float64(int(e.consistency/3))})
			return err
		}); err != nil {
			t.Fatal(err)
		}
	}
}

// TestReportIndependentOfStorageOrder stores the same rows in two
// databases in different orders (units, and judgments within units) and
// requires byte-identical report JSON, with and without the "all" split,
// and byte-identical comparisons of two runs.
func TestReportIndependentOfStorageOrder(t *testing.T) {
	eps := orderFixture()
	ctx := context.Background()
	render := func(s *results.Store) []byte {
		var buf bytes.Buffer
		for _, all := range []bool{false, true} {
			rep, err := Build(ctx, s, []string{"A"}, Options{All: all, NoCache: true})
			if err != nil {
				t.Fatal(err)
			}
			if err := Render(&buf, rep, FormatJSON); err != nil {
				t.Fatal(err)
			}
		}
		cmp, err := Compare(ctx, s, "A", "B", Options{NoCache: true})
		if err != nil {
			t.Fatal(err)
		}
		if err := RenderComparison(&buf, cmp, FormatJSON); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	var outs [][]byte
	for seed := range uint64(3) {
		r := rand.New(rand.NewPCG(seed, 99))
		s := openStore(t)
		for _, run := range []string{"A", "B"} {
			perm := make([]int, len(eps))
			for i := range perm {
				perm[i] = i
			}
			if seed > 0 {
				r.Shuffle(len(perm), func(a, b int) { perm[a], perm[b] = perm[b], perm[a] })
			}
			other := eps
			if run == "B" { // B scores differently, so the comparison has differences
				other = append([]judged(nil), eps...)
				for i := range other {
					other[i].consistency = float64(1 + (int(other[i].consistency)+i)%5)
				}
			}
			addRunOrdered(t, s, run, other, perm, r)
		}
		outs = append(outs, render(s))
	}
	if !bytes.Contains(outs[0], []byte(`"ci_low"`)) || !bytes.Contains(outs[0], []byte(`"distinct_1"`)) {
		t.Fatalf("the report has no confidence intervals or no metric:\n%.400s", outs[0])
	}
	for i := 1; i < len(outs); i++ {
		if !bytes.Equal(outs[0], outs[i]) {
			a, b := outs[0], outs[i]
			at := 0
			for at < len(a) && at < len(b) && a[at] == b[at] {
				at++
			}
			lo := max(0, at-300)
			t.Fatalf("storage order %d changes the report at byte %d:\nin order:\n%s\nshuffled:\n%s", i, at,
				a[lo:min(len(a), at+200)], b[lo:min(len(b), at+200)])
		}
	}
}
