package runner_test

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"mascot.dev/mascot/internal/fakevllm"
	"mascot.dev/mascot/internal/testspec"
	"mascot.dev/mascot/results"
	"mascot.dev/mascot/runner"
	"mascot.dev/mascot/schema"
)

// TestSweepSharesUpstreamAndResumes: a 2 x 2 sweep whose axes touch only
// the last stage runs every upstream unit once, and a second sweep of the
// same spec runs nothing. With the endpoint's default concurrency each
// unit is claimed by its worker; at 2 the stages keep 8 units in flight
// and claim them ahead, and a variant reaching a unit another variant
// claimed ahead waits for that one's commit.
func TestSweepSharesUpstreamAndResumes(t *testing.T) {
	for _, ep := range []string{"", ", concurrency: 2"} {
		t.Run("endpoint"+ep, func(t *testing.T) { sweepSharesUpstreamAndResumes(t, ep) })
	}
}

func sweepSharesUpstreamAndResumes(t *testing.T, epExtra string) {
	srv := fakevllm.Start(t, fakevllm.Options{})
	src := `package spec

import "mascot.dev/experiments/personas"

name: "test/sweep"
datasets: es: {name: "esconv", path: "` + testspec.ESConv + `", limit: 2}
rosters: support: personas.emotional_support
endpoints: speaker: {urls: ["` + srv.URL() + `"], model: "Qwen/Qwen3-8B"` + epExtra + `}
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
	// Every unit's announced commit came, shared or executed (a count
	// left over would hold every later group; results.ExpectCommits).
	if n := store.ExpectedCommits(); n != 0 {
		t.Errorf("%d unit commits still expected after both sweeps, want 0", n)
	}
}

// modelSizeTags are paper/model-size's tags: one server per policy size.
var modelSizeTags = []string{"vllm_0_6b=http://small/v1", "vllm_1_7b=http://mid/v1", "vllm_8b=http://large/v1", "judge=http://j/v1"}

func TestExpandGridZipSeeds(t *testing.T) {
	l, err := schema.Load("paper/model-size", runner.Default.Kinds(), schema.Options{Tags: modelSizeTags})
	if err != nil {
		t.Fatal(err)
	}
	vs, err := runner.Expand(l.Experiment.Sweep)
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != 9 {
		t.Fatalf("model-size grid has %d variants, want 9 (director x speaker sizes)", len(vs))
	}
	if got := vs[1].Label(); got != `endpoints.director.model="Qwen/Qwen3-0.6B", endpoints.speaker.model="Qwen/Qwen3-1.7B"` {
		t.Errorf("second variant = %s", got)
	}
	l, err = schema.Load("paper/mbti", runner.Default.Kinds(), schema.Options{Tags: []string{"vllm=http://a/v1", "judge=http://b/v1"}})
	if err != nil {
		t.Fatal(err)
	}
	if vs, err = runner.Expand(l.Experiment.Sweep); err != nil || len(vs) != 16 {
		t.Fatalf("mbti sweep: %d variants, %v; want 16", len(vs), err)
	}
	zip, err := runner.ParseMultirun([]string{"a.b=1,2", `c=x,"y,z"`}, true)
	if err != nil {
		t.Fatal(err)
	}
	if vs, err = runner.Expand(zip); err != nil || len(vs) != 2 || vs[1].Label() != `a.b=2, c="y,z"` {
		t.Fatalf("zip multirun: %v, %v", vs, err)
	}
	grid, _ := runner.ParseMultirun([]string{"a=1,2,3", "b=[1, 2],true"}, false)
	if vs, err = runner.Expand(grid); err != nil || len(vs) != 6 || vs[1].Label() != "a=1, b=true" {
		t.Fatalf("grid multirun: %v, %v", vs, err)
	}
}

// TestModelSizePlansOneServerPerSize: every variant of paper/model-size
// calls each role's own size on that size's server and trains each policy
// on its role's size; the plan lists the nine variants, and a stage that
// does not depend on a size is planned once.
func TestModelSizePlansOneServerPerSize(t *testing.T) {
	urls := map[string]string{"Qwen/Qwen3-0.6B": "http://small/v1", "Qwen/Qwen3-1.7B": "http://mid/v1", "Qwen/Qwen3-8B": "http://large/v1"}
	l, err := schema.Load("paper/model-size", runner.Default.Kinds(), schema.Options{Tags: modelSizeTags})
	if err != nil {
		t.Fatal(err)
	}
	vs, _ := runner.Expand(l.Experiment.Sweep)
	for _, v := range vs {
		var sets []string
		for k, val := range v.Axes {
			sets = append(sets, k+"="+string(val))
		}
		vl, err := schema.Load("paper/model-size", runner.Default.Kinds(), schema.Options{Tags: modelSizeTags, Overrides: sets})
		if err != nil {
			t.Fatal(err)
		}
		e := vl.Experiment
		for _, role := range []string{"director", "speaker", "user"} {
			ep := e.Endpoints[role]
			if len(ep.URLs) != 1 || ep.URLs[0] != urls[ep.Model] {
				t.Errorf("%s: %s (%s) calls %v, want %s", v.Label(), role, ep.Model, ep.URLs, urls[ep.Model])
			}
		}
		for stage, role := range map[string]string{"speaker_grpo": "speaker", "director_grpo": "director"} {
			var raw struct {
				BaseModel string `json:"base_model"`
			}
			_ = json.Unmarshal(e.Stages[stage].Raw, &raw)
			if raw.BaseModel != e.Endpoints[role].Model {
				t.Errorf("%s: %s trains on %s, the %s is %s", v.Label(), stage, raw.BaseModel, role, e.Endpoints[role].Model)
			}
		}
	}
	store, err := results.Open(filepath.Join(t.TempDir(), "m.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	sp, err := runner.PlanSweep(context.Background(), runner.SweepOptions{Arg: "paper/model-size",
		Load: schema.Options{Tags: modelSizeTags}, Run: runner.Options{Store: store}})
	if err != nil {
		t.Fatal(err)
	}
	if len(sp.Variants) != 9 || len(sp.Shared) != 0 {
		t.Fatalf("plan: %d variants, %d shared stages; want 9 and 0 (every stage depends on a size)", len(sp.Variants), len(sp.Shared))
	}
	// The printed plan's VARIANT column holds the ~86-character labels:
	// every row's units start under the header's.
	var printed bytes.Buffer
	runner.PrintSweepPlan(&printed, sp)
	lines := strings.Split(printed.String(), "\n")
	var header int
	for header < len(lines) && !strings.HasPrefix(lines[header], "#") {
		header++
	}
	col := strings.Index(lines[min(header, len(lines)-1)], "UNITS TO RUN")
	for i, v := range sp.Variants {
		row := lines[min(header+1+i, len(lines)-1)]
		if col <= len(v.Label) || len(row) <= col || !strings.Contains(row[:col], v.Label) || row[col-1] != ' ' || row[col] == ' ' {
			t.Errorf("variant %d's row is not aligned under UNITS TO RUN (column %d):\n%s", i+1, col, printed.String())
			break
		}
	}
	// The speaker's training is the same for every director size: variant
	// 4 (director 1.7B, speaker 0.6B) reuses variant 1's.
	v4 := sp.Variants[3]
	for i, k := range v4.Own {
		if k == "speaker_grpo" && v4.SameAs[i] != 1 {
			t.Errorf("variant 4's speaker_grpo is as #%d, want as #1", v4.SameAs[i])
		}
		if k == "director_grpo" && v4.SameAs[i] != 0 {
			t.Errorf("variant 4's director_grpo is shared with #%d", v4.SameAs[i])
		}
	}
}

// An adapter loaded on an endpoint serving another base model is refused
// with the position of the field that loads it.
func TestAdapterOnAnotherBaseIsRefused(t *testing.T) {
	_, err := schema.Load("paper/empathetic", runner.Default.Kinds(), schema.Options{Tags: []string{"vllm=http://a/v1", "judge=http://b/v1"},
		Sets: []string{"stages.speaker_grpo.base_model=Qwen/Qwen3-0.6B"}})
	if err == nil || !strings.Contains(err.Error(), "stages.eval.speaker_adapter: the adapter of stage speaker_grpo is trained on Qwen/Qwen3-0.6B, but endpoint speaker serves Qwen/Qwen3-8B") {
		t.Fatalf("err = %v", err)
	}
}

// TestTagAxisGivesEachVariantItsServer: an "@NAME" axis sets the tag per
// variant, so each variant calls its own server (one vLLM per model).
func TestTagAxisGivesEachVariantItsServer(t *testing.T) {
	a := fakevllm.Start(t, fakevllm.Options{Model: "m-a"})
	b := fakevllm.Start(t, fakevllm.Options{Model: "m-b"})
	spec := testspec.Write(t, `package spec

import "mascot.dev/experiments/personas"

name: "test/tag-axis"
// the tag an axis sweeps has a default, so the spec loads without the sweep
_url: *"http://unused/v1" | string @tag(url)
datasets: es: {name: "esconv", path: "`+testspec.ESConv+`", limit: 1}
rosters: support: personas.emotional_support
endpoints: speaker: {urls: [_url], model: *"m-a" | string}
stages: gen: {kind: "candidates", dataset: "es", roster: "support", k: 2}
sweep: {mode: "zip", axes: {"@url": ["`+a.URL()+`", "`+b.URL()+`"], "endpoints.speaker.model": ["m-a", "m-b"]}}
`)
	dir := t.TempDir()
	store, err := results.Open(filepath.Join(dir, "m.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	sum, err := runner.Sweep(context.Background(), runner.SweepOptions{Arg: spec,
		Load: schema.Options{Tags: []string{"url=http://elsewhere/v1"}}, Run: runner.Options{Store: store, RunsDir: filepath.Join(dir, "runs")}})
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Children) != 2 || len(sum.Failed()) != 0 {
		t.Fatalf("%d variants, %d failed", len(sum.Children), len(sum.Failed()))
	}
	for _, s := range []*fakevllm.Server{a, b} {
		if n := s.Counters().Served["/v1/chat/completions"]; n == 0 {
			t.Errorf("server %s got no request", s.URL())
		}
	}
}
