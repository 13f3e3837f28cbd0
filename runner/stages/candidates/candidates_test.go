package candidates_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"mascot.dev/mascot/internal/fakevllm"
	"mascot.dev/mascot/internal/testspec"
	"mascot.dev/mascot/results"
	"mascot.dev/mascot/runner"
)

// run loads a spec with one candidates stage against srv and executes it
// into store, returning the stage's summary and the run's id.
func run(t *testing.T, srv *fakevllm.Server, store *results.Store, dir, endpoint string) (runner.StageSummary, string) {
	t.Helper()
	l := testspec.Load(t, `package spec

import "mascot.dev/experiments/personas"

name: "test/candidates"
datasets: es: {name: "esconv", path: "`+testspec.ESConv+`", limit: 2}
rosters: support: personas.emotional_support
endpoints: speaker: {urls: ["`+srv.URL()+`"], model: "Qwen/Qwen3-8B"`+endpoint+`}
stages: cand: {kind: "candidates", dataset: "es", roster: "support", k: 3}
`)
	sum, err := runner.Execute(context.Background(), runner.Options{Loaded: l, Store: store, RunsDir: filepath.Join(dir, "runs")})
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Stages) != 1 {
		t.Fatalf("stages = %+v", sum.Stages)
	}
	return sum.Stages[0], sum.RunID
}

// TestCandidatesPerContextAndPersona: one unit per (context, persona), K
// rows each with sample indices 0..K-1, the chat prompt stored once per
// unit and the endpoint's model id; a rerun reuses every unit.
func TestCandidatesPerContextAndPersona(t *testing.T) {
	srv := fakevllm.Start(t, fakevllm.Options{})
	dir := t.TempDir()
	store, err := results.Open(filepath.Join(dir, "m.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	st, runID := run(t, srv, store, dir, "")
	if st.Status != "done" || st.Units != 6 || st.Ran != 6 {
		t.Fatalf("stage = %+v, want 6 units (2 contexts x 3 personas) run", st)
	}
	rows, err := store.Candidates(context.Background(), runID, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 18 {
		t.Fatalf("%d candidates, want 2 contexts x 3 personas x k 3", len(rows))
	}
	type unit struct{ ctx, persona string }
	seen := map[unit][]int{}
	for _, c := range rows {
		u := unit{c.ContextID, c.Persona}
		seen[u] = append(seen[u], c.SampleIdx)
		if c.Kind != "response" || c.ModelID != "Qwen/Qwen3-8B" || strings.TrimSpace(c.Text) == "" {
			t.Errorf("candidate %+v", c)
		}
		var prompt []map[string]string
		if err := json.Unmarshal([]byte(c.Prompt), &prompt); err != nil || len(prompt) < 2 || prompt[0]["role"] != "system" ||
			!strings.Contains(prompt[0]["content"], c.Persona) {
			t.Errorf("candidate %d: prompt %q is not the persona's chat prompt (%v)", c.ID, c.Prompt, err)
		}
	}
	for _, persona := range []string{"The Anchor", "The Catalyst", "The Beacon"} {
		n := 0
		for u, idx := range seen {
			if u.persona == persona {
				n++
				if fmt.Sprint(idx) != "[0 1 2]" {
					t.Errorf("%v: sample indices %v, want [0 1 2]", u, idx)
				}
			}
		}
		if n != 2 {
			t.Errorf("%s has candidates for %d contexts, want 2", persona, n)
		}
	}

	before := srv.Counters().Served["/v1/chat/completions"]
	again, _ := run(t, srv, store, dir, "")
	if again.Cached != 6 || again.Ran != 0 {
		t.Errorf("rerun = %+v, want every unit cached", again)
	}
	if after := srv.Counters().Served["/v1/chat/completions"]; after != before {
		t.Errorf("the rerun sent %d requests", after-before)
	}
}

// TestCandidatesAskForNWhenTheEndpointSupportsIt: with supports_n (the
// default) one request per unit returns its K responses; with
// supports_n: false, K requests per unit.
func TestCandidatesAskForNWhenTheEndpointSupportsIt(t *testing.T) {
	for _, c := range []struct {
		endpoint string
		want     int64
	}{{"", 6}, {", supports_n: false", 18}} {
		srv := fakevllm.Start(t, fakevllm.Options{})
		dir := t.TempDir()
		store, err := results.Open(filepath.Join(dir, "m.db"))
		if err != nil {
			t.Fatal(err)
		}
		if st, _ := run(t, srv, store, dir, c.endpoint); st.Status != "done" {
			t.Errorf("%q: stage %+v", c.endpoint, st)
		}
		if got := srv.Counters().Served["/v1/chat/completions"]; got != c.want {
			t.Errorf("endpoint%s: %d chat requests, want %d", c.endpoint, got, c.want)
		}
		store.Close()
	}
}

// TestSmallStageSendsAUnitsRequestsTogether: 6 units of K = 3 without n
// against a server that answers in 300 ms. With 64 slots every unit's
// requests fit, and more than one request per unit is in flight at once
// (the server's log of starts and ends); with 17 slots, fewer than the 18
// requests, each unit sends its requests in turn, one at a time.
func TestSmallStageSendsAUnitsRequestsTogether(t *testing.T) {
	for _, c := range []struct {
		slots    int
		together bool
	}{{64, true}, {17, false}} {
		srv := fakevllm.Start(t, fakevllm.Options{Latency: fakevllm.Latency{Base: 300 * time.Millisecond}})
		dir := t.TempDir()
		store, err := results.Open(filepath.Join(dir, "m.db"))
		if err != nil {
			t.Fatal(err)
		}
		st, _ := run(t, srv, store, dir, fmt.Sprintf(", supports_n: false, concurrency: %d", c.slots))
		store.Close()
		if st.Status != "done" || st.Ran != 6 {
			t.Fatalf("%d slots: stage %+v", c.slots, st)
		}
		peak := peakInFlight(srv.Log())
		if c.together && peak <= st.Ran {
			t.Errorf("%d slots: at most %d requests in flight for %d units; want a unit's together", c.slots, peak, st.Ran)
		}
		if !c.together && peak > st.Ran {
			t.Errorf("%d slots: %d requests in flight for %d units; want each unit's in turn", c.slots, peak, st.Ran)
		}
	}
}

// peakInFlight is the most requests of log the server was answering at
// once.
func peakInFlight(log []fakevllm.LogEntry) int {
	type edge struct {
		at time.Time
		d  int
	}
	var edges []edge
	for _, e := range log {
		edges = append(edges, edge{e.Start, 1}, edge{e.End, -1})
	}
	slices.SortFunc(edges, func(a, b edge) int {
		if c := a.at.Compare(b.at); c != 0 {
			return c
		}
		return a.d - b.d // an end before a start at the same instant
	})
	n, peak := 0, 0
	for _, e := range edges {
		n += e.d
		peak = max(peak, n)
	}
	return peak
}
