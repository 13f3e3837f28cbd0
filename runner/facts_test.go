package runner_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"mascot.dev/mascot/internal/buildinfo"
	"mascot.dev/mascot/internal/fakevllm"
	"mascot.dev/mascot/internal/testspec"
	"mascot.dev/mascot/results"
	"mascot.dev/mascot/runner"
	"mascot.dev/mascot/schema"
)

// TestRunRecordsCodeAndEveryCounter: run_config.json, run_summary.json and
// the runs table name the code that ran the run; run_config.json loads
// back as a spec that changes nothing (a rerun from it is all cached); and
// the cached rerun's summary holds every counter the first run's does.
func TestRunRecordsCodeAndEveryCounter(t *testing.T) {
	srv := fakevllm.Start(t, fakevllm.Options{})
	l, err := schema.Load(writeSpec(t, srv.URL(), 2), runner.Default.Kinds(), schema.Options{})
	if err != nil {
		t.Fatal(err)
	}
	store, err := results.Open(filepath.Join(t.TempDir(), "m.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	runs := t.TempDir()
	ctx := context.Background()
	first, err := runner.Execute(ctx, runner.Options{Loaded: l, Store: store, RunsDir: runs})
	if err != nil {
		t.Fatal(err)
	}
	want := buildinfo.Read()
	var cfg struct {
		Mascot buildinfo.Info `json:"mascot"`
		Name   string         `json:"name"`
	}
	readJSON(t, filepath.Join(first.RunDir, "run_config.json"), &cfg)
	if cfg.Mascot != want || cfg.Name != "test/candidates" {
		t.Fatalf("run_config.json names code %+v (config %q), want %+v", cfg.Mascot, cfg.Name, want)
	}
	var sum runner.Summary
	readJSON(t, filepath.Join(first.RunDir, "run_summary.json"), &sum)
	if sum.Code != want || sum.Code.Module != "mascot.dev/mascot" {
		t.Fatalf("run_summary.json names code %+v, want %+v", sum.Code, want)
	}
	run, err := store.GetRun(ctx, first.RunID)
	if err != nil {
		t.Fatal(err)
	}
	var stored buildinfo.Info
	if err := json.Unmarshal(run.Code, &stored); err != nil || stored != want {
		t.Fatalf("runs table holds code %s (%v), want %+v", run.Code, err, want)
	}

	// JSON is CUE: run_config.json loads as a .cue copy (as stage-exec does).
	raw, err := os.ReadFile(filepath.Join(first.RunDir, "run_config.json"))
	if err != nil {
		t.Fatal(err)
	}
	copyPath := filepath.Join(t.TempDir(), "run_config.cue")
	if err := os.WriteFile(copyPath, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	again, err := schema.Load(copyPath, runner.Default.Kinds(), schema.Options{})
	if err != nil {
		t.Fatalf("run_config.json does not load back as a spec: %v", err)
	}
	second, err := runner.Execute(ctx, runner.Options{Loaded: again, Store: store, RunsDir: runs})
	if err != nil {
		t.Fatal(err)
	}
	if second.Ran != 0 || second.Cached != first.Ran {
		t.Fatalf("rerun from run_config.json ran %d, cached %d; want 0 and %d", second.Ran, second.Cached, first.Ran)
	}
	var cachedSum runner.Summary
	readJSON(t, filepath.Join(second.RunDir, "run_summary.json"), &cachedSum)
	if len(first.Counters) < 10 {
		t.Fatalf("the first run has only %d counters: %v", len(first.Counters), first.Counters)
	}
	for name := range first.Counters {
		v, ok := cachedSum.Counters[name]
		if !ok {
			t.Errorf("the cached rerun's run_summary.json lacks counter %s", name)
		} else if v != 0 {
			t.Errorf("the cached rerun did no work but counts %s = %d", name, v)
		}
	}
	for _, st := range cachedSum.Stages {
		for name := range first.Stages[0].Counters {
			if _, ok := st.Counters[name]; !ok {
				t.Errorf("the cached rerun's stage %s lacks counter %s", st.Key, name)
			}
		}
	}
}

// TestSkippedStagesAreStored: a stage skipped because its input failed is
// a stage row of the run (results show and the viewer list it).
func TestSkippedStagesAreStored(t *testing.T) {
	srv := fakevllm.Start(t, fakevllm.Options{Faults: fakevllm.Faults{ServerError: 1}})
	src := `package spec

import "mascot.dev/experiments/personas"

name: "test/skipped"
datasets: es: {name: "esconv", path: "` + testspec.ESConv + `", limit: 1}
rosters: support: personas.emotional_support
endpoints: speaker: {urls: ["` + srv.URL() + `"], model: "Qwen/Qwen3-8B", retries: 0, timeout: "5s"}
stages: cand: {kind: "candidates", dataset: "es", roster: "support", k: 2}
stages: more: {kind: "candidates", dataset: "es", roster: "support", k: 2, after: ["cand"]}
`
	l, err := schema.Load(testspec.Write(t, src), runner.Default.Kinds(), schema.Options{})
	if err != nil {
		t.Fatal(err)
	}
	store, err := results.Open(filepath.Join(t.TempDir(), "m.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	ctx := context.Background()
	sum, err := runner.Execute(ctx, runner.Options{Loaded: l, Store: store, RunsDir: t.TempDir()})
	if err == nil {
		t.Fatal("a run whose only server fails every request succeeded")
	}
	stages, err := store.Stages(ctx, sum.RunID)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]results.Stage{}
	for _, st := range stages {
		got[st.Key] = st
	}
	if got["cand"].Status != "failed" || got["more"].Status != "skipped" || got["more"].Error == "" {
		t.Fatalf("stored stages %+v, want cand failed and more skipped with its reason", stages)
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}
