package web

import (
	"context"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"mascot.dev/mascot/results"
	"mascot.dev/mascot/results/jsonl"
)

// TestConversationListsEachScoreOnce: a rubric run with one judge stores
// each score twice (the judge's and the pooled "mean over judges"); the
// conversation page shows it once, with the judge's rationale. With two
// judges the page shows each judge's score and the pooled one, once each.
func TestConversationListsEachScoreOnce(t *testing.T) {
	st := openStore(t)
	ctx := context.Background()
	must(t, st.CreateRun(ctx, results.Run{ID: "r", Name: "demo", StartedAt: time.Now()}))
	gen := results.Unit{Fingerprint: "gen-r", Kind: "episodes", StageKey: "eval", RunID: "r"}
	must(t, st.CommitUnit(ctx, gen, func(tx *results.Tx) error {
		_, err := tx.InsertEpisode(results.Episode{System: "mascot", Dataset: "esconv",
			Record: jsonl.Record{ConvID: "c1", Turns: []results.Turn{
				{TurnIdx: 0, AgentName: "The Anchor", Response: "I am here with you."}}}})
		return err
	}))
	eps, err := st.EpisodesForUnit(ctx, gen.Fingerprint)
	must(t, err)
	e := eps[0]
	judge := results.Unit{Fingerprint: "judge-r", Kind: "judge", StageKey: "judge", RunID: "r"}
	must(t, st.CommitUnit(ctx, judge, func(tx *results.Tx) error {
		for _, j := range []results.Judgment{
			{Judge: "rubric/judge", Criterion: "fidelity", Score: 4, EpisodeID: e.ID, Rationale: "stays on the problem"},
			{Judge: "rubric", Criterion: "fidelity", Score: 4, EpisodeID: e.ID, Rationale: "mean over judges"},
			{Judge: "rubric/a", Criterion: "empathetic_support", Agent: "The Anchor", Score: 5, TurnID: e.Turns[0].ID, Rationale: "warm"},
			{Judge: "rubric/b", Criterion: "empathetic_support", Agent: "The Anchor", Score: 3, TurnID: e.Turns[0].ID, Rationale: "generic"},
			{Judge: "rubric", Criterion: "empathetic_support", Agent: "The Anchor", Score: 4, TurnID: e.Turns[0].ID, Rationale: "mean over judges"},
		} {
			if _, err := tx.InsertJudgment(j); err != nil {
				return err
			}
		}
		return nil
	}))
	must(t, st.FinishRun(ctx, "r", results.RunDone, "{}"))
	h, err := NewHandler(st, Options{Resample: 200, Patience: time.Minute})
	must(t, err)
	srv := httptest.NewServer(h)
	defer srv.Close()
	code, body := get(t, srv, "/episodes/"+strconv.FormatInt(e.ID, 10)+"?run=r")
	if code != 200 {
		t.Fatalf("conversation page: %d\n%s", code, body)
	}
	_, table, _ := strings.Cut(body, `id="judgments"`)
	table, _, _ = strings.Cut(table, "</table>")
	if n := strings.Count(table, "<tr><td>"); n != 1 || !strings.Contains(table, "stays on the problem") {
		t.Errorf("episode judgments show %d rows, want the one fidelity score with its judge's rationale:\n%s", n, table)
	}
	_, turn, _ := strings.Cut(body, `id="turn-0"`)
	turn, _, _ = strings.Cut(turn, `<h2>`)
	if n := strings.Count(turn, `class="judg"`); n != 3 {
		t.Errorf("the turn shows %d scores, want judge a's, judge b's and their mean once each:\n%s", n, turn)
	}
}
