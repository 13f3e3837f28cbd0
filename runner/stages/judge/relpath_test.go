package judge_test

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"mascot.dev/mascot/experiments"
	"mascot.dev/mascot/results"
	"mascot.dev/mascot/runner"
	"mascot.dev/mascot/schema"
)

// TestRelativePathsComeFromTheSpecFolder runs, from another folder, a spec
// whose dataset path and metric plugin command are relative: the dataset
// and the plugin beside the spec are used, and the working folder's own
// ./myplug.sh (which would leave a mark) never runs. The run's
// run_config.json records where each path was read.
func TestRelativePathsComeFromTheSpecFolder(t *testing.T) {
	root := t.TempDir()
	proj, cwd := filepath.Join(root, "proj"), filepath.Join(root, "elsewhere")
	for _, d := range []string{filepath.Join(proj, "data"), cwd} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	data, err := fs.ReadFile(experiments.Files, "demo/data/esconv.json")
	if err != nil {
		t.Fatal(err)
	}
	write := func(p, s string, mode os.FileMode) {
		if err := os.WriteFile(p, []byte(s), mode); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(proj, "data", "es.json"), string(data), 0o644)
	write(filepath.Join(proj, "myplug.sh"), "#!/bin/sh\nexec "+mascotBin(t)+" plugin serve distinct-n\n", 0o755)
	mark := filepath.Join(root, "decoy-ran")
	write(filepath.Join(cwd, "myplug.sh"), "#!/bin/sh\ntouch "+mark+"\nexit 1\n", 0o755)
	write(filepath.Join(proj, "spec.cue"), `package spec

import "mascot.dev/experiments/personas"

name: "test/relpath"
datasets: es: {name: "esconv", path: "data/es.json", limit: 2}
rosters: support: personas.emotional_support
endpoints: speaker: {urls: ["http://127.0.0.1:9/v1"], model: "m"}
metrics: words: {plugin: "words", command: ["./myplug.sh"]}
stages: {
	eval: {kind: "episodes", mode: "eval", dataset: "es", roster: "support", director: "speaker", user: "speaker"}
	m: {kind: "metrics", episodes: "eval", metrics: ["words"]}
}
`, 0o644)
	t.Chdir(cwd)
	l, err := schema.Load(filepath.Join(proj, "spec.cue"), runner.Default.Kinds(), schema.Options{})
	if err != nil {
		t.Fatal(err)
	}
	store, err := results.Open(filepath.Join(root, "m.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	sum, err := runner.Execute(context.Background(), runner.Options{Loaded: l, Store: store, RunsDir: filepath.Join(root, "runs"),
		Registry: runner.Default.WithStage("episodes", "test", fakeEpisodes), Services: runner.Services{Plugins: starter{mascotBin(t)}}})
	if err != nil {
		t.Fatalf("run from another folder: %v", err)
	}
	if _, err := os.Stat(mark); err == nil {
		t.Fatal("the working folder's ./myplug.sh ran")
	}
	if n := count(t, store, `SELECT COUNT(*) FROM metrics WHERE name = 'distinct_1' AND episode_id IS NOT NULL`); n != 2 {
		t.Fatalf("%d episodes measured by the spec folder's plugin, want 2", n)
	}
	cfg, err := os.ReadFile(filepath.Join(sum.RunDir, "run_config.json"))
	if err != nil {
		t.Fatal(err)
	}
	back, err := schema.Load(writeCopy(t, cfg), runner.Default.Kinds(), schema.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := back.LocalPaths()["./myplug.sh"]; got != filepath.Join(proj, "myplug.sh") {
		t.Errorf("run_config.json loaded back reads ./myplug.sh at %q, want the spec folder's", got)
	}
}

// writeCopy writes a run config as a .cue file in a new folder.
func writeCopy(t *testing.T, cfg []byte) string {
	p := filepath.Join(t.TempDir(), "run_config.cue")
	if err := os.WriteFile(p, cfg, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
