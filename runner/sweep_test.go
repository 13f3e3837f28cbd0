package runner_test

import (
	"context"
	"path/filepath"
	"testing"

	"mascot.dev/mascot/internal/fakevllm"
	"mascot.dev/mascot/internal/testspec"
	"mascot.dev/mascot/results"
	"mascot.dev/mascot/runner"
	"mascot.dev/mascot/schema"
)

// TestSweepSharesUpstreamAndResumes: a 2 x 2 sweep whose axes touch only
// the last stage runs every upstream unit once, and a second sweep of the
// same spec runs nothing.
func TestSweepSharesUpstreamAndResumes(t *testing.T) {
	srv := fakevllm.Start(t, fakevllm.Options{})
	src := `package spec

import "mascot.dev/experiments/personas"

name: "test/sweep"
datasets: es: {name: "esconv", path: "` + testspec.ESConv + `", limit: 2}
rosters: support: personas.emotional_support
endpoints: speaker: {urls: ["` + srv.URL() + `"], model: "Qwen/Qwen3-8B"}
stages: first: {kind: "candidates", dataset: "es", roster: "support", k: 2}
stages: last: {kind: "candidates", dataset: "es", roster: "support", after: ["first"]}
sweep: axes: {
	"stages.last.k": [2, 3]
	"stages.last.sampling.temperature": [0.3, 0.9]
}
`
	dir := t.TempDir()
	spec := testspec.Write(t, src)
	store, err := results.Open(filepath.Join(dir, "m.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	sweep := func() *runner.SweepSummary {
		s, err := runner.Sweep(context.Background(), runner.SweepOptions{Arg: spec,
			Run: runner.Options{Store: store, RunsDir: filepath.Join(dir, "runs")}})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	first := sweep()
	if len(first.Children) != 4 {
		t.Fatalf("%d variants, want 4", len(first.Children))
	}
	var upstream, attempts int
	if err := store.Reader().QueryRow(`SELECT COUNT(*), SUM(attempts) FROM units WHERE stage_key = 'first'`).Scan(&upstream, &attempts); err != nil {
		t.Fatal(err)
	}
	if upstream != 6 || attempts != 6 {
		t.Fatalf("upstream stage has %d units with %d attempts, want 6 and 6 (2 contexts x 3 personas, once)", upstream, attempts)
	}
	var last int
	if err := store.Reader().QueryRow(`SELECT COUNT(*) FROM units WHERE stage_key = 'last'`).Scan(&last); err != nil {
		t.Fatal(err)
	}
	if last != 24 {
		t.Fatalf("last stage has %d units, want 24 (4 variants x 6)", last)
	}
	if first.Ran != 30 || first.Cached != 0 {
		t.Fatalf("first sweep ran %d units, cached %d; want 30 and 0 (distinct units, however the variants shared them)",
			first.Ran, first.Cached)
	}
	var children int
	if err := store.Reader().QueryRow(`SELECT COUNT(*) FROM runs WHERE parent_id = ?`, first.ParentID).Scan(&children); err != nil || children != 4 {
		t.Fatalf("%d child runs (%v), want 4", children, err)
	}
	second := sweep()
	if second.Ran != 0 {
		t.Fatalf("second sweep ran %d units, want 0", second.Ran)
	}
	if second.Cached != 30 {
		t.Fatalf("second sweep cached %d units, want 30 (the distinct units of the first: 6 shared + 4 x 6)", second.Cached)
	}
}

func TestExpandGridZipSeeds(t *testing.T) {
	l, err := schema.Load("paper/model-size", schema.Options{Tags: []string{"vllm=http://a/v1", "judge=http://b/v1"}})
	if err != nil {
		t.Fatal(err)
	}
	vs, err := runner.Expand(l.Experiment.Sweep)
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != 3 {
		t.Fatalf("model-size zip sweep has %d variants, want 3", len(vs))
	}
	if got := vs[0].Label(); got != `endpoints.director.model="Qwen/Qwen3-0.6B", endpoints.speaker.model="Qwen/Qwen3-0.6B"` {
		t.Errorf("first variant = %s", got)
	}
	l, err = schema.Load("paper/mbti", schema.Options{Tags: []string{"vllm=http://a/v1", "judge=http://b/v1"}})
	if err != nil {
		t.Fatal(err)
	}
	if vs, err = runner.Expand(l.Experiment.Sweep); err != nil || len(vs) != 16 {
		t.Fatalf("mbti sweep: %d variants, %v; want 16", len(vs), err)
	}
}
