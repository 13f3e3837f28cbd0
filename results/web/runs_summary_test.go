package web

import (
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestRunsListSummarizesCounters: a row of a run with the ~90 counters a
// real run writes shows requests and tokens summed, its non-zero problem
// counters (at most three, the largest first) and a link to all of them,
// not every counter; a run with a few counters lists them as they are.
func TestRunsListSummarizesCounters(t *testing.T) {
	st := openStore(t)
	seed(t, st)
	seedDemoShaped(t, st, "run-a")
	h, err := NewHandler(st, Options{Resample: 200, PageSize: 4, Patience: time.Minute})
	must(t, err)
	srv := httptest.NewServer(h)
	defer srv.Close()
	code, body := get(t, srv, "/")
	if code != 200 {
		t.Fatalf("GET /: %d", code)
	}
	_, row, _ := strings.Cut(body, `href="/runs/run-a"`)
	row, _, _ = strings.Cut(row, "</tr>")
	for _, want := range []string{`requests</span> 224`, `tokens</span> 9532`, `+8 more`, `href="/runs/run-a#counters">all 96</a>`} {
		if !strings.Contains(row, want) {
			t.Errorf("run-a's row lacks %q:\n%s", want, row)
		}
	}
	for _, absent := range []string{"retries_429", "latency_p50_ms", "num_episodes"} {
		if strings.Contains(row, absent) {
			t.Errorf("run-a's row lists %s: every counter, not a summary", absent)
		}
	}
	if n := strings.Count(row, `class="problem"`); n != maxProblems {
		t.Errorf("run-a's row names %d problem counters, want %d", n, maxProblems)
	}
	if _, b, _ := strings.Cut(body, `href="/runs/run-b"`); !strings.Contains(b, `llm_calls</span>=40`) {
		t.Error("run-b's two counters are not listed as they are")
	}
}
