package schema_test

import (
	"os"
	"path/filepath"
	"testing"

	"mascot.dev/mascot/runner"
	_ "mascot.dev/mascot/runner/stages/all" // every built-in stage kind
	"mascot.dev/mascot/schema"
)

// TestLocalPathsTakeTheSpecFolder: relative paths a spec file writes
// (dataset path, plugin command, model_dir, pretrain text) are read from
// that file's folder, whatever the working directory; a path given with
// -t or --set, and an absolute or embed: one, from the working directory
// or as it is; a loaded-back run config's mascot.paths win.
func TestLocalPathsTakeTheSpecFolder(t *testing.T) {
	root := t.TempDir()
	proj, cwd := filepath.Join(root, "proj"), filepath.Join(root, "elsewhere")
	for _, d := range []string{proj, cwd} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	src := `package spec

import "mascot.dev/experiments/personas"

name: "t"
datasets: es: {name: "esconv", path: "data/es.json"}
datasets: tg: {name: "esconv", path: string @tag(dp)}
datasets: em: {name: "esconv", path: "embed:demo/data/esconv.json"}
datasets: ab: {name: "esconv", path: "/abs/es.json"}
rosters: support: personas.emotional_support
endpoints: speaker: {kind: "builtin", model: "m", model_dir: "models/tiny"}
metrics: mine: {plugin: "mine", command: ["./bin/myplug.sh", "--flag"]}
metrics: onpath: {plugin: "onpath", command: ["python3", "x.py"]}
stages: pre: {kind: "pretrain", text: "corpus.txt", max_steps: 1}
`
	spec := filepath.Join(proj, "spec.cue")
	if err := os.WriteFile(spec, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := schema.Load(spec, runner.Default.Kinds(), schema.Options{Cwd: cwd, Tags: []string{"dp=given/on-the-command-line.json"}, Sets: []string{`datasets.ab.split="train"`}})
	if err != nil {
		t.Fatal(err)
	}
	got := l.LocalPaths()
	want := map[string]string{
		"data/es.json":                   filepath.Join(proj, "data/es.json"),
		"models/tiny":                    filepath.Join(proj, "models/tiny"),
		"./bin/myplug.sh":                filepath.Join(proj, "bin/myplug.sh"),
		"corpus.txt":                     filepath.Join(proj, "corpus.txt"),
		"given/on-the-command-line.json": filepath.Join(cwd, "given/on-the-command-line.json"),
	}
	if len(got) != len(want) {
		t.Errorf("LocalPaths = %v, want %v", got, want)
	}
	for p, q := range want {
		if got[p] != q {
			t.Errorf("%s reads %q, want %q", p, got[p], q)
		}
	}

	// A run config written elsewhere (a shard's copy) keeps the run's map.
	copyDir := t.TempDir()
	cfg := `{"name": "t", "datasets": {"es": {"name": "esconv", "path": "data/es.json"}},
		"mascot": {"module": "m", "version": "v", "dirty": false, "go": "go", "paths": {"data/es.json": "/the/run/read/es.json"}}}`
	p := filepath.Join(copyDir, "run_config.cue")
	if err := os.WriteFile(p, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	back, err := schema.Load(p, runner.Default.Kinds(), schema.Options{Cwd: cwd})
	if err != nil {
		t.Fatal(err)
	}
	if q := back.LocalPaths()["data/es.json"]; q != "/the/run/read/es.json" {
		t.Errorf("a loaded-back run config reads data/es.json at %q, want the run's /the/run/read/es.json", q)
	}
}
