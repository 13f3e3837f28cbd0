package web

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"mascot.dev/mascot/results"
	"mascot.dev/mascot/results/jsonl"
)

// TestReportPageCoversEvaluation: the report page of a run that also holds
// training-time episodes counts its evaluation episodes only; with
// ?training=1 the training episodes come as a labelled row of their own.
func TestReportPageCoversEvaluation(t *testing.T) {
	srv, st := newTestServer(t)
	ctx := context.Background()
	n := regexp.MustCompile(`<td class="num">(\d+)</td>`)
	counts := func(body string) string {
		var out []string
		for _, m := range n.FindAllStringSubmatch(body, -1) {
			out = append(out, m[1])
		}
		return strings.Join(out, " ")
	}
	_, before := get(t, srv, "/runs/run-a/report")
	var ids []int64
	gen := results.Unit{Fingerprint: "run-a-branching", Kind: "episodes", StageKey: "branching", RunID: "run-a"}
	must(t, st.CommitUnit(ctx, gen, func(tx *results.Tx) error {
		for i := range 27 {
			id, err := tx.InsertEpisode(results.Episode{Idx: i, System: "mascot", Mode: results.ModeBranching,
				Record: jsonl.Record{ConvID: fmt.Sprintf("t%d", i)}})
			if err != nil {
				return err
			}
			ids = append(ids, id)
		}
		return nil
	}))
	judge := results.Unit{Fingerprint: "run-a-judge-branching", Kind: "judge", StageKey: "judge_branching", RunID: "run-a"}
	must(t, st.CommitUnit(ctx, judge, func(tx *results.Tx) error {
		var js []results.Judgment
		for _, id := range ids {
			js = append(js, results.Judgment{Judge: "j", Criterion: "fidelity", Score: 5, EpisodeID: id})
		}
		_, err := tx.InsertJudgments(js)
		return err
	}))
	code, body := get(t, srv, "/runs/run-a/report")
	if code != 200 {
		t.Fatalf("status %d", code)
	}
	if strings.Contains(body, "training: branching") || counts(body) != counts(before) {
		t.Errorf("evaluation report changed with the training episodes: counts %q, before %q", counts(body), counts(before))
	}
	code, body = get(t, srv, "/runs/run-a/report?training=1")
	if code != 200 {
		t.Fatalf("status %d", code)
	}
	if !strings.Contains(body, "mascot <span class=\"muted\">(training: branching)</span></td><td>all</td><td class=\"num\">27</td>") {
		t.Errorf("report with training lacks the labelled row:\n%s", body)
	}
}
