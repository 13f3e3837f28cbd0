// Package testspec writes and loads the small CUE experiments tests run:
// one place for the temp file, the loader call and the dataset path, so
// test files carry only the spec they are about. Test support; it loads
// specs against the runner's default registry with every built-in kind
// (runner/stages/all), so only external test packages and packages above
// the stages import it.
package testspec

import (
	"os"
	"path/filepath"
	"testing"

	"mascot.dev/mascot/runner"
	_ "mascot.dev/mascot/runner/stages/all" // every built-in stage kind
	"mascot.dev/mascot/schema"
)

// ESConv is the demo's ESConv sample as a spec's dataset path: embedded in
// the binary, so it resolves from any package directory and any process
// (plugins, shards) without a path relative to the test.
const ESConv = "embed:demo/data/esconv.json"

// Write writes src as spec.cue in a new temporary directory and returns
// its path.
func Write(t testing.TB, src string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "spec.cue")
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// Load writes src and loads it; a spec that does not load fails the test.
func Load(t testing.TB, src string) *schema.Loaded {
	t.Helper()
	l, err := schema.Load(Write(t, src), runner.Default.Kinds(), schema.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return l
}
