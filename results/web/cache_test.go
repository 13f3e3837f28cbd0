package web

import (
	"context"
	"net/http"
	"testing"

	"mascot.dev/mascot/results"
)

// TestCachedPagesFollowWrites: the report and compare pages are served
// from the report cache; a judgment committed to run-b afterwards must
// change both pages (a stale entry would serve them unchanged).
func TestCachedPagesFollowWrites(t *testing.T) {
	srv, st := newTestServer(t)
	pages := []string{"/runs/run-b/report", "/compare?a=run-a&b=run-b"}
	before := map[string]string{}
	for _, p := range pages {
		for range 2 { // the second request is served from the cache
			code, body := get(t, srv, p)
			if code != http.StatusOK {
				t.Fatalf("%s: status %d", p, code)
			}
			before[p] = body
		}
	}
	var n int
	must(t, st.Reader().QueryRow(`SELECT COUNT(*) FROM report_cache`).Scan(&n))
	if n == 0 {
		t.Fatal("the pages stored nothing in the report cache")
	}
	var ep int64
	must(t, st.Reader().QueryRow(`SELECT id FROM episodes WHERE unit_fp = 'gen-run-b' AND conv_id = 'conv-002'
		AND system = 'zero-shot'`).Scan(&ep))
	late := results.Unit{Fingerprint: "late-judge-run-b", Kind: "judge", StageKey: "judge", RunID: "run-b"}
	must(t, st.CommitUnit(context.Background(), late, func(tx *results.Tx) error {
		_, err := tx.InsertJudgment(results.Judgment{Judge: "late", Criterion: "fidelity", Score: 1, EpisodeID: ep})
		return err
	}))
	for _, p := range pages {
		code, body := get(t, srv, p)
		if code != http.StatusOK {
			t.Fatalf("%s: status %d", p, code)
		}
		if body == before[p] {
			t.Errorf("%s: unchanged after a judgment was committed to run-b", p)
		}
	}
}
