package results

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"
)

// stageInputsStore holds, in run r: a candidates unit (and one candidate of
// another unit that no query asks for), a judge unit over the candidates,
// a pairs unit, an episodes unit, a judge unit over the episodes and a
// GRPO unit's held-out reward metrics.
func stageInputsStore(t *testing.T) (*Store, map[string]int64) {
	t.Helper()
	ctx := context.Background()
	s := openTemp(t)
	mustRun(t, s, "r")
	mustRun(t, s, "other")
	ids := map[string]int64{}
	commit := func(fp, kind, run string, f func(tx *Tx) error) {
		t.Helper()
		if err := s.CommitUnit(ctx, Unit{Fingerprint: fp, Kind: kind, StageKey: kind, RunID: run}, f); err != nil {
			t.Fatal(err)
		}
	}
	commit("cand", "candidates", "r", func(tx *Tx) error {
		for _, c := range []struct {
			name, persona, prompt, text string
			idx                         int
		}{{"c1", "A", "p2", "t1", 1}, {"c2", "A", "p1", "t2", 0}, {"c3", "B", "", "t3", 2}} {
			id, err := tx.InsertCandidate(Candidate{Kind: "response", ContextID: "x", Persona: c.persona,
				SampleIdx: c.idx, Prompt: c.prompt, Text: c.text})
			if err != nil {
				return err
			}
			ids[c.name] = id
		}
		return nil
	})
	commit("cand-other", "candidates", "other", func(tx *Tx) error {
		id, err := tx.InsertCandidate(Candidate{Kind: "response", ContextID: "y", Persona: "A", Prompt: "p0", Text: "t0"})
		ids["c0"] = id
		return err
	})
	commit("judge", "judge", "r", func(tx *Tx) error {
		_, err := tx.InsertJudgments([]Judgment{
			// c1: criterion a averages 3 over two judges, b is 5: score 4.
			{Judge: "j1", Criterion: "a", Score: 4, CandidateID: ids["c1"]},
			{Judge: "j2", Criterion: "a", Score: 2, CandidateID: ids["c1"]},
			{Judge: "j1", Criterion: "b", Score: 5, CandidateID: ids["c1"]},
			{Judge: "j1", Criterion: "a", Score: 1, CandidateID: ids["c2"]},
			{Judge: "j1", Criterion: "a", Score: 5, CandidateID: ids["c0"]}, // judged here, listed too
		})
		return err
	})
	commit("pairs", "pairs", "r", func(tx *Tx) error {
		_, err := tx.InsertPairs([]Pair{{ContextID: "x", Persona: "A", ChosenID: ids["c1"], RejectedID: ids["c2"],
			ChosenScore: 4, RejectedScore: 1, Margin: 3}})
		return err
	})
	commit("eps", "episodes", "r", func(tx *Tx) error {
		for i, e := range []struct{ name, conv, prompt string }{{"e1", "k2", `"dp"`}, {"e2", "k1", ""}, {"e3", "k1", `"dp"`}} {
			ep := sampleEpisode(e.conv)
			ep.Idx = i
			if e.prompt != "" {
				ep.Metadata.Extra = map[string]json.RawMessage{"director_prompt": json.RawMessage(e.prompt)}
			}
			id, err := tx.InsertEpisode(ep)
			if err != nil {
				return err
			}
			ids[e.name] = id
		}
		return nil
	})
	commit("ejudge", "judge", "r", func(tx *Tx) error {
		_, err := tx.InsertJudgments([]Judgment{
			{Judge: "j1", Criterion: "c", Score: 2, EpisodeID: ids["e1"]},
			{Judge: "j1", Criterion: "c", Score: 4, EpisodeID: ids["e2"]},
			{Judge: "j1", Criterion: "d", Score: 5, Agent: "The Anchor", EpisodeID: ids["e2"]}, // per-agent: not collective
		})
		return err
	})
	commit("grpo", "train", "r", func(tx *Tx) error {
		_, err := tx.InsertMetrics([]Metric{
			{System: "train_b", Name: "heldout_reward_before", Value: 0.1},
			{System: "train_b", Name: "heldout_reward_after", Value: 0.4},
			{System: "train_a", Name: "heldout_reward_before", Value: 0.2}, // no after: left out
		})
		return err
	})
	commit("grpo-other", "train", "other", func(tx *Tx) error {
		_, err := tx.InsertMetrics([]Metric{
			{System: "train_c", Name: "heldout_reward_before", Value: 0},
			{System: "train_c", Name: "heldout_reward_after", Value: 1},
		})
		return err
	})
	return s, ids
}

func TestStageInputQueries(t *testing.T) {
	ctx := context.Background()
	s, ids := stageInputsStore(t)
	check := func(name string, got, want any, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\ngot  %+v\nwant %+v", name, got, want)
		}
	}

	jc, err := s.JudgedCandidateRows(ctx, []string{"judge"})
	// By candidate unit and sample index: c2 (sample 0) before c1 (sample 1).
	check("JudgedCandidateRows", meanOfMeans(jc), []scoredItem{
		{UnitFP: "judge", ContextID: "x", Persona: "A", ID: ids["c2"], Score: 1},
		{UnitFP: "judge", ContextID: "x", Persona: "A", ID: ids["c1"], Score: 4},
		{UnitFP: "judge", ContextID: "y", Persona: "A", ID: ids["c0"], Score: 5},
	}, err)
	je, err := s.JudgedEpisodeRows(ctx, []string{"ejudge"})
	check("JudgedEpisodeRows", meanOfMeans(je), []scoredItem{
		{UnitFP: "ejudge", ContextID: "k1", ID: ids["e2"], Score: 4},
		{UnitFP: "ejudge", ContextID: "k2", ID: ids["e1"], Score: 2},
	}, err)
	ct, err := s.CandidateTexts(ctx, []string{"cand"})
	check("CandidateTexts", ct, []CandidateText{
		{ID: ids["c2"], UnitFP: "cand", ContextID: "x", Persona: "A", Text: "t2"},
		{ID: ids["c1"], UnitFP: "cand", ContextID: "x", Persona: "A", Text: "t1"},
		{ID: ids["c3"], UnitFP: "cand", ContextID: "x", Persona: "B", Text: "t3"},
	}, err)
	cp, err := s.CandidatePrompts(ctx, []string{"cand"})
	check("CandidatePrompts", cp, []string{"p1", "p2"}, err)
	dp, err := s.DirectorPrompts(ctx, []string{"eps"})
	check("DirectorPrompts", dp, []string{"dp"}, err)
	pt, err := s.PairTexts(ctx, []string{"pairs"})
	check("PairTexts", pt, []PairText{{ContextID: "x", Persona: "A", Prompt: "p2", Chosen: "t1", Rejected: "t2", Margin: 3}}, err)

	// No units: nothing, and no error.
	none, err := s.CandidateTexts(ctx, nil)
	check("CandidateTexts(nil)", len(none), 0, err)
	none2, err := s.JudgedCandidateRows(ctx, []string{"cand"}) // not a judge unit
	check("JudgedCandidateRows(cand)", len(none2), 0, err)
}

// scoredItem is a judged item with the mean over criteria of its mean
// score per criterion (what the pairs stage computes from the rows).
type scoredItem struct {
	UnitFP, ContextID, Persona string
	ID                         int64
	Score                      float64
}

// meanOfMeans folds judgment rows (grouped by unit and item, in the order
// the queries return them) into one score per item.
func meanOfMeans(rows []JudgmentRow) []scoredItem {
	var out []scoredItem
	for i := 0; i < len(rows); {
		j := i
		sums, counts, order := map[string]float64{}, map[string]float64{}, []string{}
		for ; j < len(rows) && rows[j].UnitFP == rows[i].UnitFP && rows[j].ID == rows[i].ID; j++ {
			if counts[rows[j].Criterion] == 0 {
				order = append(order, rows[j].Criterion)
			}
			sums[rows[j].Criterion] += rows[j].Score
			counts[rows[j].Criterion]++
		}
		var total float64
		for _, c := range order {
			total += sums[c] / counts[c]
		}
		r := rows[i]
		out = append(out, scoredItem{UnitFP: r.UnitFP, ContextID: r.ContextID, Persona: r.Persona, ID: r.ID,
			Score: total / float64(len(order))})
		i = j
	}
	return out
}

func TestMaxRowIDs(t *testing.T) {
	ctx := context.Background()
	s, ids := stageInputsStore(t)
	got, err := s.MaxRowIDs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, tb := range ingestOrder {
		if tb.name != "llm_calls" {
			want = append(want, tb.name)
		}
	}
	if len(got) != len(want) {
		t.Fatalf("tables %v, want %v", got, want)
	}
	for _, tb := range want {
		if _, ok := got[tb]; !ok {
			t.Errorf("no watermark for %s", tb)
		}
	}
	if got["candidates"] != ids["c0"] || got["episodes"] != ids["e3"] || got["pairs"] != 1 ||
		got["judgments"] != 8 || got["metrics"] != 5 || got["artifacts"] != 0 {
		t.Errorf("watermarks %v", got)
	}
}
