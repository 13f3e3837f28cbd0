package llm

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"mascot.dev/mascot/internal/fakevllm"
)

func fp(v float64) *float64 { return &v }
func ip(v int) *int         { return &v }
func bp(v bool) *bool       { return &v }

func TestBodyCarriesTemperatureZeroAndVLLMExtras(t *testing.T) {
	s := fakevllm.Start(t, fakevllm.Options{Record: true})
	c := newTestClient(t, nil, s.URL())
	req := userReq("judge", "score this")
	req.Temperature, req.TopP, req.TopK, req.RepetitionPenalty = fp(0), fp(0), ip(20), fp(1.1)
	req.Seed, req.N, req.EnableThinking = ip(3), 2, bp(false)
	req.JSONSchema = json.RawMessage(`{"type":"object","required":["score"],"properties":{"score":{"type":"integer","minimum":1,"maximum":5}}}`)
	resp, err := c.Chat(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Choices) != 2 || !strings.Contains(resp.Choices[0], `"score":`) {
		t.Fatalf("choices %q", resp.Choices)
	}
	recs := s.Requests()
	var body map[string]any
	if err := json.Unmarshal(recs[len(recs)-1].Body, &body); err != nil {
		t.Fatalf("server got invalid JSON: %v", err)
	}
	want := map[string]any{"temperature": 0.0, "top_p": 0.0, "top_k": 20.0, "repetition_penalty": 1.1, "seed": 3.0,
		"n": 2.0, "model": "Qwen/Qwen3-8B"}
	for k, v := range want {
		if got, ok := body[k]; !ok || got != v {
			t.Errorf("body[%q] = %v (present %v), want %v", k, got, ok, v)
		}
	}
	if kw, _ := body["chat_template_kwargs"].(map[string]any); kw["enable_thinking"] != false {
		t.Errorf("chat_template_kwargs = %v", body["chat_template_kwargs"])
	}
	rf, _ := body["response_format"].(map[string]any)
	js, _ := rf["json_schema"].(map[string]any)
	if rf["type"] != "json_schema" || js["schema"] == nil {
		t.Errorf("response_format = %v", body["response_format"])
	}
}

func TestEndpointSamplingDefaultsAndRequestOverride(t *testing.T) {
	s := fakevllm.Start(t, fakevllm.Options{Record: true})
	c := newTestClient(t, func(e *Endpoint, _ *Config) {
		e.Sampling = Sampling{Temperature: fp(0.7), TopK: ip(50), MaxTokens: 64}
	}, s.URL())
	req := userReq("speaker", "hi")
	req.Temperature = fp(0)
	if _, err := c.Chat(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	var body map[string]any
	_ = json.Unmarshal(s.Requests()[0].Body, &body)
	if body["temperature"] != 0.0 || body["top_k"] != 50.0 || body["max_tokens"] != 64.0 {
		t.Errorf("body %v", body)
	}
}

func TestThinkBlocksStrippedRawKept(t *testing.T) {
	s := fakevllm.Start(t, fakevllm.Options{})
	c := newTestClient(t, func(e *Endpoint, _ *Config) { e.EnableThinking = bp(true) }, s.URL())
	resp, err := c.Chat(context.Background(), userReq("speaker", "hi"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(resp.Text(), "think>") || resp.Text() == "" {
		t.Errorf("choice not stripped: %q", resp.Text())
	}
	if !strings.HasPrefix(resp.Raw[0], "<think>") || !strings.HasSuffix(resp.Raw[0], resp.Text()) {
		t.Errorf("raw %q", resp.Raw[0])
	}
	if resp.PromptTokens == 0 || resp.CompletionTokens == 0 {
		t.Errorf("usage not recorded: %+v", resp)
	}
}

func TestStripThink(t *testing.T) {
	for in, want := range map[string]string{
		"plain":                                   "plain",
		"<think>a\nb</think>\n\nanswer":           "answer",
		"reasoning only closed</think> done":      "done",
		"x <think>1</think> y <think>2</think> z": "x  y  z",
		"answer <think>unfinished":                "answer",
	} {
		if got := StripThink(in); got != want {
			t.Errorf("StripThink(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestRetryAfterHonoured(t *testing.T) {
	s := fakevllm.Start(t, fakevllm.Options{Record: true, Script: []fakevllm.Fault{fakevllm.FaultRateLimit}})
	c := newTestClient(t, nil, s.URL())
	resp, err := c.Chat(context.Background(), userReq("speaker", "hi"))
	if err != nil {
		t.Fatal(err)
	}
	recs := s.Requests()
	if len(recs) != 2 || resp.Attempts != 2 {
		t.Fatalf("%d requests, %d attempts", len(recs), resp.Attempts)
	}
	// backoff alone is at most 50ms here; Retry-After says 1s
	if gap := recs[1].Time.Sub(recs[0].Time); gap < time.Second {
		t.Errorf("retried after %v, before Retry-After", gap)
	}
	if st := c.Stats(); st.RetriesByKind[KindRateLimited] != 1 || st.Retries != 1 {
		t.Errorf("stats %+v", st)
	}
}

func TestRetryThenSuccess(t *testing.T) {
	s := fakevllm.Start(t, fakevllm.Options{Script: []fakevllm.Fault{fakevllm.FaultServerError,
		fakevllm.FaultUnavailable, fakevllm.FaultTruncated, fakevllm.FaultMalformed}})
	c := newTestClient(t, nil, s.URL())
	resp, err := c.Chat(context.Background(), userReq("speaker", "hi"))
	if err != nil {
		t.Fatal(err)
	}
	st := c.Stats()
	if resp.Attempts != 5 || st.AttemptFailures[KindServer] != 2 || st.AttemptFailures[KindMalformed] != 2 ||
		st.Succeeded != 1 || st.Failed != 0 {
		t.Errorf("attempts %d, stats %+v", resp.Attempts, st)
	}
}

func TestExhaustedRetriesReportKind(t *testing.T) {
	s := fakevllm.Start(t, fakevllm.Options{Script: []fakevllm.Fault{"500", "500", "500"}})
	c := newTestClient(t, func(e *Endpoint, _ *Config) { e.Retries = 2 }, s.URL())
	_, err := c.Chat(context.Background(), userReq("speaker", "hi"))
	var e *Error
	if !errors.As(err, &e) || e.Kind != KindServer || e.Attempts != 3 || e.Status != 500 ||
		!strings.Contains(e.Message, "EngineCore") {
		t.Fatalf("error %#v", err)
	}
	if st := c.Stats(); st.Failures[KindServer] != 1 || st.Failed != 1 || servedChat(s) != 3 {
		t.Errorf("stats %+v served %d", st, servedChat(s))
	}
}

func TestClientErrorNotRetriedFlatAndNested(t *testing.T) {
	for _, legacy := range []bool{false, true} {
		s := fakevllm.Start(t, fakevllm.Options{LegacyErrors: legacy})
		c := newTestClient(t, nil, s.URL())
		req := userReq("speaker", "hi")
		req.Model = "no-such-adapter"
		_, err := c.Chat(context.Background(), req)
		if KindOf(err) != KindClient || servedChat(s) != 1 || !strings.Contains(err.Error(), "does not exist") {
			t.Errorf("legacy=%v: %v (served %d)", legacy, err, servedChat(s))
		}
	}
}

func TestStallTimesOutThenRetries(t *testing.T) {
	s := fakevllm.Start(t, fakevllm.Options{Script: []fakevllm.Fault{fakevllm.FaultStall}})
	c := newTestClient(t, func(e *Endpoint, _ *Config) { e.Timeout = 200 * time.Millisecond }, s.URL())
	resp, err := c.Chat(context.Background(), userReq("speaker", "hi"))
	if err != nil || resp.Attempts != 2 || c.Stats().AttemptFailures[KindTimeout] != 1 {
		t.Fatalf("resp %+v err %v stats %+v", resp, err, c.Stats())
	}
}

func TestTotalDeadlineAndCancel(t *testing.T) {
	s := fakevllm.Start(t, fakevllm.Options{Script: []fakevllm.Fault{"stall", "stall", "stall"}})
	c := newTestClient(t, func(e *Endpoint, _ *Config) {
		e.Timeout, e.TotalTimeout = 150*time.Millisecond, 250*time.Millisecond
	}, s.URL())
	_, err := c.Chat(context.Background(), userReq("speaker", "hi"))
	if KindOf(err) != KindDeadline || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("want deadline, got %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := c.Chat(ctx, userReq("speaker", "hi")); KindOf(err) != KindCanceled || !errors.Is(err, context.Canceled) {
		t.Errorf("want canceled, got %v", err)
	}
}

// TestTotalDeadlineWhileWaitingForASlot: a request that waits for the
// endpoint's only slot (held here) ends at its total deadline without
// sending anything, as does one whose caller's deadline comes first or
// whose caller gave up; once the slot is free, a request goes through.
func TestTotalDeadlineWhileWaitingForASlot(t *testing.T) {
	s := fakevllm.Start(t, fakevllm.Options{})
	c := newTestClient(t, func(e *Endpoint, _ *Config) {
		e.Concurrency, e.TotalTimeout = 1, 200*time.Millisecond
	}, s.URL())
	st, err := c.endpointFor(userReq("speaker", "x"))
	if err != nil {
		t.Fatal(err)
	}
	st.sem <- struct{}{} // the slot is taken
	_, err = c.Chat(context.Background(), userReq("speaker", "waits"))
	var e *Error
	if KindOf(err) != KindDeadline || !errors.As(err, &e) || e.Attempts != 0 {
		t.Errorf("waiting for the slot: want a deadline after 0 attempts, got %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := c.Chat(ctx, userReq("speaker", "waits less")); KindOf(err) != KindDeadline {
		t.Errorf("waiting under the caller's deadline: want a deadline, got %v", err)
	}
	gone, stop := context.WithCancel(context.Background())
	stop()
	if _, err := c.Chat(gone, userReq("speaker", "gave up")); KindOf(err) != KindCanceled {
		t.Errorf("a canceled caller: want canceled, got %v", err)
	}
	if n := c.Stats().Attempts; n != 0 {
		t.Errorf("%d attempts sent while the slot was taken, want 0", n)
	}
	<-st.sem
	if _, err := c.Chat(context.Background(), userReq("speaker", "goes")); err != nil {
		t.Errorf("with the slot free: %v", err)
	}
}

func TestJudgeNeedsExplicitEndpoint(t *testing.T) {
	s := fakevllm.Start(t, fakevllm.Options{})
	c := newTestClient(t, func(_ *Endpoint, cfg *Config) { cfg.Roles = nil }, s.URL())
	if _, err := c.Chat(context.Background(), userReq("speaker", "hi")); err != nil {
		t.Errorf("speaker via default: %v", err)
	}
	for _, role := range []string{"judge", "judge:rubric"} {
		_, err := c.Chat(context.Background(), userReq(role, "hi"))
		if !errors.Is(err, ErrNoEndpoint) || KindOf(err) != KindConfig {
			t.Errorf("%s fell back: %v", role, err)
		}
	}
	if _, ok := c.EndpointFor("judge"); ok {
		t.Error("EndpointFor(judge) found the default")
	}
}

func TestModelResolvedFromServer(t *testing.T) {
	s := fakevllm.Start(t, fakevllm.Options{Model: "served-name", Adapters: map[string]string{"aa": "/x"}})
	c := newTestClient(t, func(e *Endpoint, _ *Config) { e.Model = "" }, s.URL())
	resp, err := c.Chat(context.Background(), userReq("speaker", "hi"))
	if err != nil || resp.ModelID != "served-name" {
		t.Fatalf("model %q err %v", resp.ModelID, err)
	}
}

func TestTraceRecordsEachRequest(t *testing.T) {
	s := fakevllm.Start(t, fakevllm.Options{Script: []fakevllm.Fault{"500"}})
	tr := &traces{}
	c := newTestClient(t, func(_ *Endpoint, cfg *Config) { cfg.Trace = tr.add }, s.URL())
	req := userReq("director", "hi")
	req.Model = "Qwen/Qwen3-8B"
	if _, err := c.Chat(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	ev := tr.all()
	if len(ev) != 1 {
		t.Fatalf("%d events", len(ev))
	}
	e := ev[0]
	if e.Role != "director" || e.Endpoint != "main" || e.URL != s.URL() || e.Model != "Qwen/Qwen3-8B" ||
		e.Status != "ok" || e.Attempts != 2 || e.PromptTokens == 0 || e.CompletionTokens == 0 || e.Latency <= 0 {
		t.Errorf("trace %+v", e)
	}
}

func TestEmptyContentCountedOrRetried(t *testing.T) {
	s := fakevllm.Start(t, fakevllm.Options{Script: []fakevllm.Fault{fakevllm.FaultEmpty, fakevllm.FaultEmpty}})
	c := newTestClient(t, nil, s.URL())
	resp, err := c.Chat(context.Background(), userReq("speaker", "hi"))
	if err != nil || resp.Text() != "" || c.Stats().EmptyResponses != 1 {
		t.Fatalf("empty kept: %q %v %+v", resp.Text(), err, c.Stats())
	}
	c2 := newTestClient(t, func(e *Endpoint, _ *Config) { e.RetryEmpty = true }, s.URL())
	resp, err = c2.Chat(context.Background(), userReq("speaker", "hi"))
	if err != nil || resp.Text() == "" || resp.Attempts != 2 || c2.Stats().AttemptFailures[KindEmpty] != 1 {
		t.Fatalf("empty retried: %q %v %+v", resp.Text(), err, c2.Stats())
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for in, want := range map[string]time.Duration{"": 0, "2": 2 * time.Second, "0.5": 500 * time.Millisecond,
		"-1": 0, "junk": 0, now.Add(3 * time.Second).Format(http.TimeFormat): 3 * time.Second} {
		if got := parseRetryAfter(in, now); got != want {
			t.Errorf("parseRetryAfter(%q) = %v, want %v", in, got, want)
		}
	}
}
