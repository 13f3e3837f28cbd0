package episodes_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"mascot.dev/mascot/internal/fakevllm"
	"mascot.dev/mascot/runner"
	"mascot.dev/mascot/schema"
)

// TestCountersMatchTheServer injects a fixed, seeded fault mix and checks
// that run_summary.json's per-role LLM counters add up to what the fake
// server itself counted: attempts, retries and final failures by cause,
// tokens, and the garbage directives replaced by a random agent.
func TestCountersMatchTheServer(t *testing.T) {
	// The first requests get one fault of each kind whatever the draws
	// (which depend on arrival order); the rest draw from the mix.
	script := []fakevllm.Fault{fakevllm.FaultStall, fakevllm.FaultMalformed, fakevllm.FaultRateLimit, fakevllm.FaultServerError}
	srv := fakevllm.Start(t, fakevllm.Options{Seed: 11, Script: script, Faults: fakevllm.Faults{ServerError: 0.10,
		RateLimit: 0.05, Stall: 0.02, Malformed: 0.02, GarbageDirective: 0.01, StallFor: 2 * time.Second}})
	h := newHarness(t)
	spec := writeSpec(t, srv.URL(), `retries: 1, timeout: "300ms", concurrency: 8`,
		`ep: {kind: "episodes", dataset: "es", roster: "support", turns: 3, samples_per_context: 3,
		persona_set: "big5", concurrency: 8}`)
	l, err := schema.Load(spec, runner.Default.Kinds(), schema.Options{})
	if err != nil {
		t.Fatal(err)
	}
	runs := t.TempDir()
	sum, _ := runner.Execute(context.Background(), runner.Options{Loaded: l, Store: h.store, RunsDir: runs})
	b, err := os.ReadFile(filepath.Join(runs, sum.RunID, "run_summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Counters map[string]int64 `json:"counters"`
	}
	if err := json.Unmarshal(b, &file); err != nil {
		t.Fatal(err)
	}
	c := file.Counters
	total := func(name string) int64 {
		var n int64
		for _, role := range []string{"director", "speaker", "user"} {
			n += c["llm."+role+"."+name]
		}
		return n
	}
	sc := srv.Counters()
	f := sc.Faults
	if f[fakevllm.FaultServerError] == 0 || f[fakevllm.FaultRateLimit] == 0 || f[fakevllm.FaultStall] == 0 ||
		f[fakevllm.FaultMalformed] == 0 {
		t.Fatalf("the draw injected too few faults to test anything: %v", f)
	}
	for _, x := range []struct {
		cause string
		want  int64
	}{
		{"429", f[fakevllm.FaultRateLimit]},
		{"5xx", f[fakevllm.FaultServerError] + f[fakevllm.FaultUnavailable]},
		{"timeout", f[fakevllm.FaultStall]},
		{"malformed", f[fakevllm.FaultMalformed] + f[fakevllm.FaultTruncated]},
	} {
		if got := total("retries_"+x.cause) + total("failures_"+x.cause); got != x.want {
			t.Errorf("%s: %d retried + failed attempts counted, server injected %d", x.cause, got, x.want)
		}
	}
	checks := []struct {
		name      string
		got, want int64
	}{
		{"attempts", total("attempts"), sc.Served["/v1/chat/completions"]},
		{"tokens_in", total("tokens_in"), sc.TokensIn},
		{"tokens_out", total("tokens_out"), sc.TokensOut},
		// A random agent replaces every garbage directive and every failed
		// Director call.
		{"num_random_agent_fallbacks", c["num_random_agent_fallbacks"],
			f[fakevllm.FaultGarbageDirective] + c["llm.director.failures"]},
		{"failures", total("failures"), c["num_generation_failures"]},
	}
	for _, x := range checks {
		if x.got != x.want {
			t.Errorf("%s = %d, want %d (the server's count)", x.name, x.got, x.want)
		}
	}
	if c["llm.speaker.latency_p50_ms"] <= 0 || c["llm.speaker.latency_p95_ms"] < c["llm.speaker.latency_p50_ms"] {
		t.Errorf("speaker latency p50 %d ms, p95 %d ms", c["llm.speaker.latency_p50_ms"], c["llm.speaker.latency_p95_ms"])
	}
	for _, n := range runner.RoleCounterNames() {
		if _, ok := c["llm.user."+n]; !ok {
			t.Errorf("run_summary.json has no llm.user.%s", n)
		}
	}
}
