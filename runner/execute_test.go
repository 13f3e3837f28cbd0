package runner_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"mascot.dev/mascot/internal/fakevllm"
	"mascot.dev/mascot/internal/testspec"
	"mascot.dev/mascot/results"
	"mascot.dev/mascot/runner"
	_ "mascot.dev/mascot/runner/stages/all"
	"mascot.dev/mascot/schema"
)

// writeSpec writes a small experiment using the demo's ESConv data against
// the given server URL and returns its path.
func writeSpec(t *testing.T, url string, k int) string {
	t.Helper()
	src := `package spec

import "mascot.dev/experiments/personas"

name: "test/candidates"
datasets: es: {name: "esconv", path: "` + testspec.ESConv + `", limit: 3}
rosters: support: personas.emotional_support
endpoints: speaker: {urls: ["` + url + `"], model: "Qwen/Qwen3-8B", retries: 2, timeout: "5s"}
stages: cand: {kind: "candidates", dataset: "es", roster: "support", k: ` + strconv.Itoa(k) + `}
`
	return testspec.Write(t, src)
}

func TestRunThenResumeRunsNothing(t *testing.T) {
	srv := fakevllm.Start(t, fakevllm.Options{})
	spec := writeSpec(t, srv.URL(), 4)
	l, err := schema.Load(spec, runner.Default.Kinds(), schema.Options{})
	if err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(t.TempDir(), "m.db")
	store, err := results.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	opts := runner.Options{Loaded: l, Store: store, RunsDir: t.TempDir()}
	first, err := runner.Execute(context.Background(), opts)
	if err != nil {
		t.Fatalf("first run: %v", err)
	}
	if first.Ran != 9 || first.Cached != 0 {
		t.Fatalf("first run ran %d cached %d, want 9 and 0 (3 contexts x 3 personas)", first.Ran, first.Cached)
	}
	var n int
	if err := store.Reader().QueryRow(`SELECT COUNT(*) FROM candidates`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 36 {
		t.Fatalf("%d candidate rows, want 36 (9 units x K=4)", n)
	}
	// The run's end fills the report cache (report.Warm).
	if err := store.Reader().QueryRow(`SELECT COUNT(*) FROM report_cache WHERE run_id = ? AND key LIKE 'tables/%'`,
		first.RunID).Scan(&n); err != nil || n != 1 {
		t.Fatalf("%d report tables stored for the finished run (%v), want 1", n, err)
	}
	second, err := runner.Execute(context.Background(), opts)
	if err != nil {
		t.Fatalf("second run: %v", err)
	}
	if second.Ran != 0 || second.Cached != 9 {
		t.Fatalf("second run ran %d cached %d, want 0 and 9", second.Ran, second.Cached)
	}
	if err := store.Reader().QueryRow(`SELECT COUNT(*) FROM candidates`).Scan(&n); err != nil || n != 36 {
		t.Fatalf("after rerun %d candidate rows (%v), want 36", n, err)
	}
	for _, f := range []string{"run_config.json", "run_summary.json"} {
		if _, err := os.Stat(filepath.Join(second.RunDir, f)); err != nil {
			t.Errorf("missing %s: %v", f, err)
		}
	}
}

func TestChangedConfigInvalidatesOnlyThatStage(t *testing.T) {
	srv := fakevllm.Start(t, fakevllm.Options{})
	store, err := results.Open(filepath.Join(t.TempDir(), "m.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	run := func(k int) *runner.Summary {
		l, err := schema.Load(writeSpec(t, srv.URL(), k), runner.Default.Kinds(), schema.Options{})
		if err != nil {
			t.Fatal(err)
		}
		s, err := runner.Execute(context.Background(), runner.Options{Loaded: l, Store: store, RunsDir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	run(2)
	if s := run(3); s.Ran != 9 {
		t.Fatalf("changing k reran %d units, want all 9", s.Ran)
	}
	if s := run(2); s.Ran != 0 {
		t.Fatalf("going back to k=2 reran %d units, want 0 (still in the store)", s.Ran)
	}
}
