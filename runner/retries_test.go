package runner_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"mascot.dev/mascot/internal/fakevllm"
	"mascot.dev/mascot/internal/testspec"
	"mascot.dev/mascot/results"
	"mascot.dev/mascot/runner"
)

// TestRetriesZeroMeansOneAttempt runs the same failing stage against a
// server that answers every request with 500, once with retries: 0 and once
// with retries: 1. Each request is sent 1+retries times, so the second run
// makes exactly twice the attempts of the first; with retries: 0 read as
// "the default" (4) the first would make more.
func TestRetriesZeroMeansOneAttempt(t *testing.T) {
	attempts := func(retries int) int64 {
		srv := fakevllm.Start(t, fakevllm.Options{Faults: fakevllm.Faults{ServerError: 1}})
		dir := t.TempDir()
		src := fmt.Sprintf(`package spec

import "mascot.dev/experiments/personas"

name: "test/retries"
datasets: es: {name: "esconv", path: %q, limit: 1}
rosters: support: personas.emotional_support
endpoints: speaker: {urls: [%q], model: "Qwen/Qwen3-8B", retries: %d}
stages: cand: {kind: "candidates", dataset: "es", roster: "support", k: 2, concurrency: 1}
`, testspec.ESConv, srv.URL(), retries)
		l := testspec.Load(t, src)
		store, err := results.Open(filepath.Join(dir, "m.db"))
		if err != nil {
			t.Fatal(err)
		}
		defer store.Close()
		sum, err := runner.Execute(context.Background(), runner.Options{Loaded: l, Store: store, RunsDir: filepath.Join(dir, "runs")})
		if err == nil || sum.Failed == 0 {
			t.Fatalf("retries %d: run = %+v, %v; want failed units", retries, sum, err)
		}
		return srv.Counters().Faults[fakevllm.FaultServerError]
	}
	none, one := attempts(0), attempts(1)
	if none == 0 || one != 2*none {
		t.Errorf("retries: 0 made %d attempts, retries: 1 made %d; want the second twice the first", none, one)
	}
}
