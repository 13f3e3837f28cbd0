package episodes_test

import (
	"testing"
	"time"

	"mascot.dev/mascot/internal/fakevllm"
)

// TestFaultsLeaveNoHalfWrittenEpisode runs under 10 % 500s, 5 % 429s, 2 %
// stalls past the attempt timeout and 2 % malformed bodies, with one retry.
// The first 8 requests are scripted 500s so that, with 4 units in flight,
// at least 4 requests exhaust their retries whatever the draws.
func TestFaultsLeaveNoHalfWrittenEpisode(t *testing.T) {
	script := make([]fakevllm.Fault, 8)
	for i := range script {
		script[i] = fakevllm.FaultServerError
	}
	srv := fakevllm.Start(t, fakevllm.Options{Seed: 3, Script: script, Faults: fakevllm.Faults{
		ServerError: 0.10, RateLimit: 0.05, Stall: 0.02, Malformed: 0.02, StallFor: 2 * time.Second}})
	h := newHarness(t)
	spec := writeSpec(t, srv.URL(), `retries: 1, timeout: "300ms", concurrency: 4`,
		`ep: {kind: "episodes", dataset: "es", roster: "support", turns: 3, samples_per_context: 4,
		persona_set: "big5", concurrency: 4}`)
	sum := h.run(spec, true)
	if sum.Ran != 12 || sum.Failed != 0 {
		t.Fatalf("ran %d units, %d failed; want 12 and 0", sum.Ran, sum.Failed)
	}
	c := srv.Counters().Faults
	if c[fakevllm.FaultServerError] < 8 || c[fakevllm.FaultRateLimit]+c[fakevllm.FaultStall]+c[fakevllm.FaultMalformed] == 0 {
		t.Fatalf("faults injected %v: want the 8 scripted 500s and some drawn faults", c)
	}
	// Nothing half-written: every episode has its turns, numbered 0..n-1,
	// and agents_spoken tallies its agent turns.
	if n := h.count(`SELECT COUNT(*) FROM episodes e WHERE NOT EXISTS (SELECT 1 FROM turns t WHERE t.episode_id = e.id)`); n != 0 {
		t.Fatalf("%d episodes without turns", n)
	}
	if n := h.count(`SELECT COUNT(*) FROM episodes e WHERE (SELECT MAX(turn_idx) + 1 FROM turns t WHERE t.episode_id = e.id)
		<> (SELECT COUNT(*) FROM turns t WHERE t.episode_id = e.id)`); n != 0 {
		t.Fatalf("%d episodes with gaps in turn_idx", n)
	}
	if n := h.count(`SELECT COUNT(*) FROM episodes e WHERE (SELECT COALESCE(SUM(value), 0) FROM json_each(e.agents_spoken))
		<> (SELECT COUNT(*) FROM turns t WHERE t.episode_id = e.id AND t.turn_type = 'agent')`); n != 0 {
		t.Fatalf("%d episodes whose agents_spoken disagrees with their turns", n)
	}
	stored := h.count(`SELECT COUNT(*) FROM episodes`)
	skipped := int(sum.Counters["num_skipped_samples"])
	if stored+skipped != 12 {
		t.Fatalf("%d episodes stored + %d skipped, want 12", stored, skipped)
	}
	// Counters equal the requests that failed for good (traced with an error).
	exhausted := h.count(`SELECT COUNT(*) FROM llm_calls WHERE run_id = ? AND error <> ''`, sum.RunID)
	if got := sum.Counters["num_generation_failures"]; int(got) != exhausted || exhausted < 4 {
		t.Fatalf("num_generation_failures = %d, traced failed requests = %d (want equal, at least 4); counters %v",
			got, exhausted, sum.Counters)
	}
	again := h.run(spec, true)
	if again.Ran != 0 || h.count(`SELECT COUNT(*) FROM episodes`) != stored {
		t.Fatalf("rerun ran %d units and changed the episode count", again.Ran)
	}
}
