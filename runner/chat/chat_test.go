package chat_test

import (
	"context"
	"path/filepath"
	"testing"

	"mascot.dev/mascot/internal/fakevllm"
	"mascot.dev/mascot/internal/testspec"
	"mascot.dev/mascot/results"
	"mascot.dev/mascot/runner"
	"mascot.dev/mascot/runner/chat"
	_ "mascot.dev/mascot/runner/stages/all"
)

// finishedRun runs two eval stages (mascot and zero-shot) against a fake
// vLLM and returns the options to reopen it and its id.
func finishedRun(t *testing.T) (runner.Options, string) {
	t.Helper()
	url := fakevllm.Start(t, fakevllm.Options{}).URL()
	ep := `{urls: ["` + url + `"], model: "Qwen/Qwen3-8B", retries: 1, timeout: "30s"}`
	src := `package spec

import "mascot.dev/experiments/personas"

name: "test/chat-open"
seed: 5
datasets: es: {name: "esconv", path: "embed:demo/data/esconv.json", limit: 1}
datasets: test: {name: "esconv", path: "embed:demo/data/esconv.json", limit: 1, exclude: ["es"]}
rosters: support: personas.emotional_support
endpoints: director: ` + ep + `
endpoints: speaker: ` + ep + `
endpoints: user: ` + ep + `
stages: {
	ind: {kind: "episodes", dataset: "es", roster: "support", system: "mascot", turns: 1}
	eval: {kind: "episodes", mode: "eval", dataset: "test", roster: "support", system: "mascot", turns: 1}
	zs: {kind: "episodes", mode: "eval", dataset: "test", roster: "support", system: "zero-shot", turns: 1}
}
`
	dir := t.TempDir()
	l := testspec.Load(t, src)
	st, err := results.Open(filepath.Join(dir, "m.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	opts := runner.Options{Loaded: l, Store: st, RunsDir: filepath.Join(dir, "runs")}
	sum, err := runner.Execute(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	return opts, sum.RunID
}

func count(t *testing.T, st *results.Store, q string) int {
	t.Helper()
	var n int
	if err := st.Reader().QueryRow(q).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestOpenPicksStage: the wanted system's own evaluation stage is chosen
// (zero-shot → zs, mascot → eval before ind), an ablation missing from the
// run reuses the directed evaluation stage with its system replaced, and
// opening writes nothing to the store.
func TestOpenPicksStage(t *testing.T) {
	opts, runID := finishedRun(t)
	ctx := context.Background()
	const rows = `SELECT (SELECT COUNT(*) FROM units) + (SELECT COUNT(*) FROM stages) + (SELECT COUNT(*) FROM run_units)
		+ (SELECT COUNT(*) FROM runs) + (SELECT COUNT(*) FROM episodes)`
	before := count(t, opts.Store, rows)
	for _, c := range []struct{ system, stage, name string }{
		{"", "eval", "mascot"},
		{"zero-shot", "zs", "zero-shot"},
		{"mascot-c", "eval", "mascot-c"},
	} {
		sys, err := chat.Open(ctx, opts, runID, chat.Options{System: c.system})
		if err != nil {
			t.Fatalf("opening %q: %v", c.system, err)
		}
		if sys.Stage() != c.stage || sys.Name() != c.name {
			t.Errorf("system %q: stage %s system %s, want %s %s", c.system, sys.Stage(), sys.Name(), c.stage, c.name)
		}
		if err := sys.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if after := count(t, opts.Store, rows); after != before {
		t.Errorf("opening wrote to the store: %d rows before, %d after", before, after)
	}
	if _, err := chat.Open(ctx, opts, runID, chat.Options{System: "no-such"}); err == nil {
		t.Error("an unknown system opened")
	}
}
