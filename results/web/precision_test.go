package web

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"mascot.dev/mascot/results"
	"mascot.dev/mascot/results/jsonl"
)

// TestReportPagePrecision: a 0–1 metric is shown on the report page with
// the decimals of the one rule (results/report format.go), as the terminal
// prints it, not rounded to one decimal.
func TestReportPagePrecision(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	must(t, st.CreateRun(ctx, results.Run{ID: "m", Name: "metrics", Status: results.RunDone, StartedAt: time.Now()}))
	for i, v := range []float64{0.61, 0.64, 0.59, 0.66, 0.62} {
		u := results.Unit{Fingerprint: fmt.Sprintf("ep-%d", i), Kind: "episodes", StageKey: "eval", RunID: "m"}
		var id int64
		must(t, st.CommitUnit(ctx, u, func(tx *results.Tx) error {
			var err error
			id, err = tx.InsertEpisode(results.Episode{System: "mascot", Dataset: "esconv",
				Record: jsonl.Record{ConvID: fmt.Sprintf("c%d", i), Turns: []results.Turn{{TurnIdx: 0, AgentName: "A", Response: "hi"}}}})
			return err
		}))
		mu := results.Unit{Fingerprint: fmt.Sprintf("m-%d", i), Kind: "metrics", StageKey: "metrics", RunID: "m"}
		must(t, st.CommitUnit(ctx, mu, func(tx *results.Tx) error {
			_, err := tx.InsertMetric(results.Metric{EpisodeID: id, Name: "distinct_1", Value: v})
			return err
		}))
	}
	h, err := NewHandler(st, Options{Resample: 200, Patience: time.Minute})
	must(t, err)
	srv := httptest.NewServer(h)
	defer srv.Close()
	code, body := get(t, srv, "/runs/m/report")
	if code != http.StatusOK {
		t.Fatalf("status %d:\n%s", code, body)
	}
	if !strings.Contains(body, "0.624 ± 0.027") {
		t.Fatalf("the report page does not show distinct_1 as 0.624 ± 0.027:\n%s", body)
	}
	if strings.Contains(body, "0.6 ± 0.0") {
		t.Fatalf("the report page rounds a 0–1 metric to one decimal:\n%s", body)
	}
}
