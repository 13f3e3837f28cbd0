package runner_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"mascot.dev/mascot/results"
	"mascot.dev/mascot/runner"
	"mascot.dev/mascot/schema"
)

// noopStage lists n units that do nothing, so a run measures the
// executor's own cost per unit: fingerprinting, the ledger lookups, the
// StartUnit/CommitUnit transactions and progress.
type noopStage struct{ n int }

func (s noopStage) Units(context.Context) ([]runner.Unit, error) {
	us := make([]runner.Unit, s.n)
	for i := range us {
		us[i] = runner.Unit{Key: fmt.Sprint(i), Inputs: map[string]int{"i": i}}
	}
	return us, nil
}

func (noopStage) Run(context.Context, runner.Unit) (runner.Commit, error) {
	return func(*results.Tx) error { return nil }, nil
}

// BenchmarkExecutorOverhead reports the executor's cost per unit in
// microseconds (fresh database each iteration, 2,000 no-op units).
func BenchmarkExecutorOverhead(b *testing.B) {
	const units = 2000
	dir := b.TempDir()
	spec := filepath.Join(dir, "spec.cue")
	src := `package spec

import "mascot.dev/experiments/personas"

name: "bench/overhead"
datasets: es: {name: "esconv", path: "unused.json"}
rosters: support: personas.emotional_support
endpoints: speaker: {urls: ["http://127.0.0.1:9/v1"], model: "m"}
stages: noop: {kind: "candidates", dataset: "es", roster: "support", concurrency: 8}
`
	if err := os.WriteFile(spec, []byte(src), 0o644); err != nil {
		b.Fatal(err)
	}
	l, err := schema.Load(spec, runner.Default.Kinds(), schema.Options{})
	if err != nil {
		b.Fatal(err)
	}
	reg := runner.Default.WithStage("candidates", "bench",
		func(*runner.Env, schema.Stage) (runner.Stage, error) { return noopStage{units}, nil })
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		store, err := results.Open(filepath.Join(dir, fmt.Sprintf("b%d.db", i)))
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		s, err := runner.Execute(context.Background(), runner.Options{Loaded: l, Store: store, Registry: reg,
			RunsDir: filepath.Join(dir, "runs")})
		b.StopTimer()
		if err != nil || s.Ran != units {
			b.Fatalf("ran %v units: %v", s, err)
		}
		store.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*units), "µs/unit")
}
