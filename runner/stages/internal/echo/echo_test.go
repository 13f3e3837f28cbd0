package echo_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mascot.dev/mascot/internal/fakevllm"
	"mascot.dev/mascot/internal/testspec"
	"mascot.dev/mascot/results"
	"mascot.dev/mascot/runner"
	_ "mascot.dev/mascot/runner/stages/candidates"
	_ "mascot.dev/mascot/runner/stages/internal/echo"
	"mascot.dev/mascot/schema"
)

func spec(t *testing.T, url, stages string) (*schema.Loaded, error) {
	t.Helper()
	src := `package spec

import "mascot.dev/experiments/personas"

name: "test/echo"
datasets: es: {name: "esconv", path: "` + testspec.ESConv + `", limit: 1}
rosters: support: personas.emotional_support
endpoints: speaker: {urls: ["` + url + `"], model: "Qwen/Qwen3-8B"}
stages: cand: {kind: "candidates", dataset: "es", roster: "support", k: 2}
` + stages
	p := testspec.Write(t, src)
	return schema.Load(p, runner.Default.Kinds(), schema.Options{})
}

// TestKindInOneFolderValidatesAndRuns: the echo kind, declared only in this
// folder, is part of the stage union, keeps its own bounds and reads, runs
// after the stage it reads, and is vendored for the cue CLI.
func TestKindInOneFolderValidatesAndRuns(t *testing.T) {
	srv := fakevllm.Start(t, fakevllm.Options{})
	if _, err := spec(t, srv.URL(), `stages: again: {kind: "echo", from: "cand", times: 0}`+"\n"); err == nil ||
		!strings.Contains(err.Error(), "stages.again.times: invalid value 0 (out of bound >=1)") {
		t.Errorf("times 0: err = %v", err)
	}
	if _, err := spec(t, srv.URL(), `stages: again: {kind: "echo", from: "cand"}
stages: twice: {kind: "echo", from: "again"}
`); err == nil || !strings.Contains(err.Error(), `stage "again" has kind echo, but echo.from must name a stage of kind candidates`) {
		t.Errorf("echo reading echo: err = %v", err)
	}

	l, err := spec(t, srv.URL(), `stages: again: {kind: "echo", from: "cand", times: 3}`+"\n")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	store, err := results.Open(filepath.Join(dir, "m.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	sum, err := runner.Execute(context.Background(), runner.Options{Loaded: l, Store: store, RunsDir: filepath.Join(dir, "runs")})
	if err != nil {
		t.Fatal(err)
	}
	var echo *runner.StageSummary
	for i := range sum.Stages {
		if sum.Stages[i].Key == "again" {
			echo = &sum.Stages[i]
		}
	}
	if echo == nil || echo.Status != "done" || echo.Units != 3 {
		t.Fatalf("echo stage = %+v, want done with 3 units", echo)
	}

	if _, err := schema.Vendor(dir, runner.Default.Kinds()); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "cue.mod", "gen", "mascot.dev", "schema", "kinds_gen.cue"))
	if err != nil || !strings.Contains(string(b), `"echo": #Echo`) {
		t.Errorf("vendored union lacks echo: %v\n%s", err, b)
	}
	if _, err := os.Stat(filepath.Join(dir, "cue.mod", "gen", "mascot.dev", "schema", "kind_echo.cue")); err != nil {
		t.Errorf("echo's CUE is not vendored: %v", err)
	}
}
