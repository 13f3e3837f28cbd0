package fakevllm

import (
	"bytes"
	"encoding/json"
	"net/http"
	"testing"
)

// TestRequestLog: every generation request is logged with its
// X-Request-Id, status and the usage the server counted for it, and the
// log's usage sums to the counters.
func TestRequestLog(t *testing.T) {
	s := Start(t, Options{Script: []Fault{FaultNone, FaultServerError, FaultTruncated}})
	for i, id := range []string{"run.1", "run.2", "run.3"} {
		b, _ := json.Marshal(map[string]any{"messages": msgs("x", "tell me something")})
		req, _ := http.NewRequest(http.MethodPost, s.URL()+"/chat/completions", bytes.NewReader(b))
		req.Header.Set("X-Request-Id", id)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
		resp.Body.Close()
	}
	log := s.Log()
	if len(log) != 3 {
		t.Fatalf("%d log entries, want 3: %+v", len(log), log)
	}
	want := []struct {
		id     string
		status int
		usage  bool
	}{{"run.1", 200, true}, {"run.2", 500, false}, {"run.3", 200, false}}
	var in, out int64
	for i, w := range want {
		e := log[i]
		if e.RequestID != w.id || e.Status != w.status || (e.PromptTokens > 0) != w.usage || e.Aborted ||
			e.End.Before(e.Start) {
			t.Errorf("entry %d = %+v, want id %s status %d usage %v", i, e, w.id, w.status, w.usage)
		}
		in, out = in+int64(e.PromptTokens), out+int64(e.CompletionTokens)
	}
	if c := s.Counters(); c.TokensIn != in || c.TokensOut != out || in == 0 {
		t.Errorf("log usage %d/%d, counters %d/%d", in, out, c.TokensIn, c.TokensOut)
	}
}
