package judge_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"mascot.dev/mascot/internal/fakevllm"
	"mascot.dev/mascot/results"
)

// TestFailedUnitsShowTheFirstCause: without --strict, a run whose speaker
// URL lacks /v1 (every request a 404) and one whose judge's every call
// 404s say why in the stage failure: the first request that failed for
// good, its HTTP status and the /v1 hint, not only "no candidate
// survived" or "N LLM request(s) failed for good".
func TestFailedUnitsShowTheFirstCause(t *testing.T) {
	srv := fakevllm.Start(t, fakevllm.Options{})
	bare := strings.TrimSuffix(srv.URL(), "/v1")
	for _, c := range []struct {
		name, speaker, judge, want string
	}{
		{"speaker without /v1", bare, srv.URL(), "no candidate survived"},
		{"judge without /v1", srv.URL(), bare, "LLM request(s) failed for good"},
	} {
		store, err := results.Open(filepath.Join(t.TempDir(), "m.db"))
		if err != nil {
			t.Fatal(err)
		}
		l := judgeSpec(t, c.speaker, fmt.Sprintf("%q", c.judge), `retries: 0, timeout: "5s"`)
		_, err = runJudge(t, l, store)
		store.Close()
		if err == nil {
			t.Fatalf("%s: the run succeeded", c.name)
		}
		msg := err.Error()
		for _, want := range []string{c.want, "first", "HTTP 404", "does not end in /v1"} {
			if !strings.Contains(msg, want) {
				t.Errorf("%s: the failure does not say %q:\n%s", c.name, want, msg)
			}
		}
	}
}
