package runner_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mascot.dev/mascot/internal/fakevllm"
	"mascot.dev/mascot/results"
	"mascot.dev/mascot/runner"
	"mascot.dev/mascot/schema"
)

// withPreflight is the default registry whose candidates kind cannot run
// here, the way a training stage asking for a missing GPU cannot.
func withPreflight(t *testing.T) *runner.Registry {
	k, ok := runner.Default.Lookup("candidates")
	if !ok {
		t.Fatal("no candidates kind")
	}
	k.Preflight = func(schema.Stage) (string, error) { return "k", errors.New("the widget is missing") }
	return runner.Default.With(k)
}

func TestPreflightRefusesBeforeWritingAnything(t *testing.T) {
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
	runs := filepath.Join(t.TempDir(), "runs")
	opts := runner.Options{Loaded: l, Store: store, RunsDir: runs, Registry: withPreflight(t)}

	plan, err := runner.Plan(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(plan[0].Note, "cannot run here: the widget is missing") {
		t.Errorf("plan note %q does not say the stage cannot run here", plan[0].Note)
	}

	sum, err := runner.Execute(context.Background(), opts)
	var serrs schema.Errors
	if !errors.As(err, &serrs) || len(serrs) != 1 || serrs[0].Path != "stages.cand.k" ||
		serrs[0].Msg != "the widget is missing" || len(serrs[0].Positions) != 1 || !strings.Contains(serrs[0].Positions[0], ".cue:") {
		t.Fatalf("Execute = %v, %v; want one positioned error at stages.cand.k", sum, err)
	}
	if _, err := os.Stat(runs); !os.IsNotExist(err) {
		t.Errorf("the refused run made %s (%v)", runs, err)
	}
	var n int
	if err := store.Reader().QueryRow(`SELECT COUNT(*) FROM runs`).Scan(&n); err != nil || n != 0 {
		t.Errorf("%d run rows after a refused run (%v), want 0", n, err)
	}
	if r := srv.Requests(); len(r) != 0 {
		t.Errorf("the refused run sent %d requests", len(r))
	}
}

// A stage whose units are all done will not run, so a machine that could
// not run it may still run the rest of the experiment.
func TestPreflightLetsACompleteStageThrough(t *testing.T) {
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
	opts := runner.Options{Loaded: l, Store: store, RunsDir: t.TempDir()}
	if _, err := runner.Execute(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	opts.Registry = withPreflight(t)
	sum, err := runner.Execute(context.Background(), opts)
	if err != nil {
		t.Fatalf("rerun of a complete stage was refused: %v", err)
	}
	if sum.Ran != 0 || sum.Cached != 9 {
		t.Fatalf("rerun ran %d, cached %d; want 0 and 9", sum.Ran, sum.Cached)
	}
}

// A sweep refuses before it records its parent run.
func TestPreflightRefusesASweepBeforeItsParentRun(t *testing.T) {
	srv := fakevllm.Start(t, fakevllm.Options{})
	src := writeSpec(t, srv.URL(), 2)
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(src, append(b, []byte("sweep: axes: \"stages.cand.sampling.temperature\": [0.3, 0.9]\n")...), 0o644); err != nil {
		t.Fatal(err)
	}
	store, err := results.Open(filepath.Join(t.TempDir(), "m.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	_, err = runner.Sweep(context.Background(), runner.SweepOptions{Arg: src,
		Run: runner.Options{Store: store, RunsDir: t.TempDir(), Registry: withPreflight(t)}})
	var serrs schema.Errors
	if !errors.As(err, &serrs) || !strings.Contains(err.Error(), "the widget is missing") {
		t.Fatalf("Sweep = %v, want the preflight's error", err)
	}
	var n int
	if err := store.Reader().QueryRow(`SELECT COUNT(*) FROM runs`).Scan(&n); err != nil || n != 0 {
		t.Errorf("%d run rows after a refused sweep (%v), want 0", n, err)
	}
}
