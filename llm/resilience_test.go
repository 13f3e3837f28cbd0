package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"mascot.dev/mascot/internal/fakevllm"
)

func TestSlowReplicaGetsFewerRequests(t *testing.T) {
	fast := fakevllm.Start(t, fakevllm.Options{Latency: fakevllm.Latency{Base: 10 * time.Millisecond}})
	slow := fakevllm.Start(t, fakevllm.Options{Latency: fakevllm.Latency{Base: 50 * time.Millisecond}})
	c := newTestClient(t, nil, fast.URL(), slow.URL())
	for i, err := range runMany(t, c, 400, 16, nil) {
		if err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
	}
	f, s := servedChat(fast), servedChat(slow)
	t.Logf("fast replica served %d, slow replica %d", f, s)
	if f+s != 400 || s == 0 || s*2 > f {
		t.Errorf("fast %d, slow %d: the 5x slower replica should get clearly fewer", f, s)
	}
}

func TestKilledReplicaLosesNoRequest(t *testing.T) {
	a := fakevllm.Start(t, fakevllm.Options{Latency: fakevllm.Latency{Base: 5 * time.Millisecond}})
	b := fakevllm.Start(t, fakevllm.Options{Latency: fakevllm.Latency{Base: 5 * time.Millisecond}})
	c := newTestClient(t, nil, a.URL(), b.URL())
	var killed atomic.Bool
	errs := runMany(t, c, 300, 16, func(done int) {
		if done == 100 && killed.CompareAndSwap(false, true) {
			a.Kill()
		}
	})
	for i, err := range errs {
		if err != nil {
			t.Errorf("request %d lost: %v", i, err)
		}
	}
	st := c.Stats()
	if !killed.Load() || st.Succeeded != 300 || servedChat(b) < 150 {
		t.Errorf("killed %v, stats %+v, b served %d", killed.Load(), st, servedChat(b))
	}
	t.Logf("a served %d before the kill, b %d; attempt failures %v", servedChat(a), servedChat(b), st.AttemptFailures)
}

func TestAPIKeyFromEnvSentButNeverLeaked(t *testing.T) {
	const key = "sk-test-5eb1c2d9f00d"
	t.Setenv("MASCOT_TEST_LLM_KEY", key)
	s := fakevllm.Start(t, fakevllm.Options{APIKey: key, Record: true})
	// a server that echoes the Authorization header in its error body
	echo := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(500)
		fmt.Fprintf(w, `{"object":"error","message":"bad auth %s","code":500}`, r.Header.Get("Authorization"))
	}))
	t.Cleanup(echo.Close)
	tr := &traces{}
	c := newTestClient(t, func(e *Endpoint, cfg *Config) {
		e.APIKeyEnv, e.Retries = "MASCOT_TEST_LLM_KEY", 1
		cfg.Trace = tr.add
		cfg.Endpoints = []Endpoint{{Name: "echo", URLs: []string{echo.URL + "/v1"}, Model: "m",
			APIKeyEnv: "MASCOT_TEST_LLM_KEY", Retries: -1}}
		cfg.Roles = map[string]string{"judge": "echo"}
	}, s.URL())
	if _, err := c.Chat(context.Background(), userReq("speaker", "hi")); err != nil {
		t.Fatal(err)
	}
	if got := s.Requests()[0].Authorization; got != "Bearer "+key {
		t.Errorf("Authorization = %q", got)
	}
	_, err := c.Chat(context.Background(), userReq("judge", "hi"))
	if err == nil || !strings.Contains(err.Error(), "[REDACTED]") {
		t.Fatalf("want a redacted error, got %v", err)
	}
	if err := c.LoadAdapter(context.Background(), "echo", "x", "/p"); err == nil {
		t.Fatal("adapter load on the echo server succeeded")
	} else if strings.Contains(err.Error(), key) {
		t.Errorf("adapter error leaks the key: %v", err)
	}
	ep, _ := c.EndpointFor("speaker")
	cfgJSON, _ := json.Marshal(ep)
	evJSON, _ := json.Marshal(tr.all())
	stats := fmt.Sprintf("%+v", c.Stats())
	for what, s := range map[string]string{"error": err.Error(), "traces": string(evJSON), "endpoint": string(cfgJSON),
		"endpoint %+v": fmt.Sprintf("%+v", ep), "stats": stats} {
		if strings.Contains(s, key) {
			t.Errorf("%s contains the API key: %s", what, s)
		}
	}
	t.Setenv("MASCOT_TEST_LLM_KEY", "")
	if _, err := New(Config{Endpoints: []Endpoint{{Name: "x", URLs: []string{s.URL()}, APIKeyEnv: "MASCOT_TEST_LLM_KEY"}}}); err == nil ||
		!strings.Contains(err.Error(), "MASCOT_TEST_LLM_KEY") {
		t.Errorf("empty key variable: %v", err)
	}
}

func TestCacheHitReplaysExactly(t *testing.T) {
	s := fakevllm.Start(t, fakevllm.Options{})
	cache := NewMemCache()
	c := newTestClient(t, func(_ *Endpoint, cfg *Config) { cfg.Cache = cache }, s.URL())
	req := userReq("speaker", "hi")
	req.N, req.CacheKey = 3, "unit-fingerprint/sample-0"
	first, err := c.Chat(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	req.Messages[1].Content = "something else: the key alone decides"
	second, err := c.Chat(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if !second.Cached || first.Cached {
		t.Errorf("cached flags: first %v second %v", first.Cached, second.Cached)
	}
	second.Cached = false
	if !reflect.DeepEqual(first, second) {
		t.Errorf("replay differs:\n%+v\n%+v", first, second)
	}
	req.CacheKey = "unit-fingerprint/sample-1"
	third, _ := c.Chat(context.Background(), req)
	st := c.Stats()
	if servedChat(s) != 2 || third.Cached || st.CacheHits != 1 || st.CacheMisses != 2 || cache.Len() != 2 {
		t.Errorf("served %d, stats %+v", servedChat(s), st)
	}
}

// TestFaultMixCountersMatchServer runs requests through 10 % 500s, 5 % 429s,
// 2 % stalls and 2 % malformed bodies: every request must succeed or fail
// with a counted kind, and each failed attempt the client counted must be a
// fault the server injected.
func TestFaultMixCountersMatchServer(t *testing.T) {
	s := fakevllm.Start(t, fakevllm.Options{Seed: 42, Faults: fakevllm.Faults{ServerError: 0.10, RateLimit: 0.05,
		Stall: 0.02, Malformed: 0.02, RetryAfter: time.Second}})
	c := newTestClient(t, func(e *Endpoint, _ *Config) { e.Timeout, e.Concurrency = time.Second, 32 }, s.URL())
	const n = 400
	errs := runMany(t, c, n, 32, nil)
	failedByKind := map[Kind]int64{}
	for _, err := range errs {
		if err != nil {
			failedByKind[KindOf(err)]++
		}
	}
	st := c.Stats()
	sc := s.Counters()
	t.Logf("client attempt failures %v, final failures %v; server faults %v", st.AttemptFailures, st.Failures, sc.Faults)
	if st.Succeeded+st.Failed != n || !reflect.DeepEqual(failedByKind, nonZero(st.Failures)) {
		t.Errorf("succeeded %d + failed %d != %d, or errors %v != counted %v", st.Succeeded, st.Failed, n, failedByKind, st.Failures)
	}
	pairs := map[Kind]fakevllm.Fault{KindServer: fakevllm.FaultServerError, KindRateLimited: fakevllm.FaultRateLimit,
		KindTimeout: fakevllm.FaultStall, KindMalformed: fakevllm.FaultMalformed}
	for k, f := range pairs {
		if st.AttemptFailures[k] != sc.Faults[f] {
			t.Errorf("client counted %d %s attempts, server injected %d %s", st.AttemptFailures[k], k, sc.Faults[f], f)
		}
		if st.AttemptFailures[k] != st.RetriesByKind[k]+st.Failures[k] {
			t.Errorf("%s: %d failed attempts != %d retried + %d exhausted", k, st.AttemptFailures[k], st.RetriesByKind[k], st.Failures[k])
		}
	}
	if sc.Faults[fakevllm.FaultServerError] == 0 || sc.Faults[fakevllm.FaultRateLimit] == 0 {
		t.Errorf("fault mix injected too little: %v", sc.Faults)
	}
	if got := st.Attempts; got != sc.Served["/v1/chat/completions"] {
		t.Errorf("client attempts %d != server requests %d", got, sc.Served["/v1/chat/completions"])
	}
}

func nonZero(m map[Kind]int64) map[Kind]int64 {
	out := map[Kind]int64{}
	for k, v := range m {
		if v != 0 {
			out[k] = v
		}
	}
	return out
}
