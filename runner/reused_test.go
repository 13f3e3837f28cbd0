package runner_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"mascot.dev/mascot/internal/fakevllm"
	"mascot.dev/mascot/internal/testspec"
	"mascot.dev/mascot/runner"
	"mascot.dev/mascot/schema"
)

// TestReplyOfKilledUnitIsCountedOnceOnResume: a unit fetches one of its
// two replies, the other request stalls, and the process is SIGKILLed
// with the first reply cached and the unit not committed. The resumed run
// serves that reply from the cache and counts it as reused, with its
// usage (no committed work counted it), not as a cache hit; the stalled
// request is lost in flight. Over both runs the attempts are the requests
// the server received and the tokens are the server's (the stalled
// request used none).
func TestReplyOfKilledUnitIsCountedOnceOnResume(t *testing.T) {
	srv := fakevllm.Start(t, fakevllm.Options{Script: []fakevllm.Fault{fakevllm.FaultNone, fakevllm.FaultStall}})
	// One unit at a time, its K = 2 requests side by side; the stall
	// outlasts the test (no timeout fires before the kill).
	spec := testspec.Write(t, fmt.Sprintf(`package spec

import "mascot.dev/experiments/personas"

name: "test/candidates"
datasets: es: {name: "esconv", path: %q, limit: 3}
rosters: support: personas.emotional_support
endpoints: speaker: {urls: [%q], model: "Qwen/Qwen3-8B", retries: 0, timeout: "10m", supports_n: false, concurrency: 2}
stages: cand: {kind: "candidates", dataset: "es", roster: "support", k: 2, concurrency: 1}
`, testspec.ESConv, srv.URL()))
	store := openStore(t)
	db := store.Path()
	ctx := context.Background()
	cmd, _ := startHelper(t, spec, db)
	waitFor(t, "the first reply in the cache, its unit uncommitted", func() bool {
		var n int
		err := store.Reader().QueryRow(`SELECT COUNT(*) FROM llm_calls WHERE key IS NOT NULL AND response_json <> '{}'
			AND counted = 0`).Scan(&n)
		return err == nil && n == 1 && srv.Counters().Served["/v1/chat/completions"] == 2
	})
	if err := cmd.Process.Kill(); err != nil { // SIGKILL, the second request stalled
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if served := srv.Counters().Served["/v1/chat/completions"]; served != 2 {
		t.Fatalf("the server received %d requests before the kill, want 2", served)
	}

	l, err := schema.Load(spec, runner.Default.Kinds(), schema.Options{})
	if err != nil {
		t.Fatal(err)
	}
	sum, err := runner.Execute(ctx, runner.Options{Loaded: l, Store: store, RunsDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Ran != 9 {
		t.Fatalf("the resumed run ran %d units, want all 9 (none committed before the kill)", sum.Ran)
	}
	c := sum.Counters
	if c["llm.speaker.reused"] != 1 || c["llm.speaker.cache_hits"] != 0 {
		t.Fatalf("resumed run: %d reused, %d cache hits; want the killed unit's one reply reused, no cache hit (counters %v)",
			c["llm.speaker.reused"], c["llm.speaker.cache_hits"], c)
	}
	if c["llm.speaker.requests"] != 18 {
		t.Fatalf("resumed run counts %d requests, want 18 (9 units x K=2)", c["llm.speaker.requests"])
	}

	// Over both runs: what the server received, exactly.
	var attempts, lost, tokIn, tokOut int64
	rows, err := store.Reader().Query(`SELECT name, value FROM counters WHERE name LIKE 'llm.speaker.%'`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var name string
		var v int64
		if err := rows.Scan(&name, &v); err != nil {
			t.Fatal(err)
		}
		switch name[strings.LastIndexByte(name, '.')+1:] {
		case "attempts":
			attempts += v
		case "lost_in_flight":
			lost += v
		case "tokens_in":
			tokIn += v
		case "tokens_out":
			tokOut += v
		}
	}
	rows.Close()
	sc := srv.Counters()
	if served := sc.Served["/v1/chat/completions"]; attempts != served || served != 2+17 {
		t.Errorf("attempts counted %d, the server received %d (want 2 before the kill, 17 after it)", attempts, served)
	}
	if lost != 1 {
		t.Errorf("lost_in_flight %d, want the one stalled request", lost)
	}
	if tokIn != sc.TokensIn || tokOut != sc.TokensOut || tokIn == 0 {
		t.Errorf("tokens counted %d/%d, the server's %d/%d", tokIn, tokOut, sc.TokensIn, sc.TokensOut)
	}
}
