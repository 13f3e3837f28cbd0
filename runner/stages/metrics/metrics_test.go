package metrics_test

import (
	"context"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"mascot.dev/mascot/internal/testspec"
	"mascot.dev/mascot/plugins/spec"
	"mascot.dev/mascot/results"
	"mascot.dev/mascot/runner"
	"mascot.dev/mascot/runner/stages/metrics"
	"mascot.dev/mascot/schema"
)

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// pluginBin builds plugins/internal/testbin, which serves the built-in
// plugins as `mascot plugin serve NAME` does, without building mascot.
func pluginBin(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "metrics-test-")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, "testbin")
		if out, err := exec.Command("go", "build", "-o", binPath, "mascot.dev/mascot/plugins/internal/testbin").CombinedOutput(); err != nil {
			binErr = err
			t.Logf("%s", out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

type starter struct{ bin string }

func (s starter) Command(name string) []string { return []string{s.bin, "plugin", "serve", name} }

// fixedEpisodes stands in for the episodes kind: one unit storing three
// episodes of two systems whose agent turns have known distinct-n values.
type fixedEpisodes struct{}

func newFixedEpisodes(*runner.Env, schema.Stage) (runner.Stage, error) { return fixedEpisodes{}, nil }

func (fixedEpisodes) Units(context.Context) ([]runner.Unit, error) {
	return []runner.Unit{{Key: "all", Inputs: "fixed"}}, nil
}

func (fixedEpisodes) Run(context.Context, runner.Unit) (runner.Commit, error) {
	ep := func(conv, system string, agent ...string) results.Episode {
		e := results.Episode{ConvID: conv, System: system, Dataset: "esconv", Mode: "eval"}
		for i, txt := range agent {
			e.Turns = append(e.Turns, results.Turn{TurnIdx: len(e.Turns), AgentName: "The Anchor", Response: txt})
			if i == 0 { // user turns are not counted
				e.Turns = append(e.Turns, results.Turn{TurnIdx: len(e.Turns), TurnType: "user", AgentName: "user", Response: "same same same"})
			}
		}
		return e
	}
	eps := []results.Episode{
		ep("c1", "varied", "one two", "three four"),  // distinct_1 4/4, distinct_2 2/2
		ep("c1", "repeat", "same same", "same same"), // distinct_1 1/4, distinct_2 1/2
		ep("c2", "repeat", "same word", "same word"), // distinct_1 2/4, distinct_2 1/2
	}
	return func(tx *results.Tx) error {
		for i, e := range eps {
			e.Idx = i
			if _, err := tx.InsertEpisode(e); err != nil {
				return err
			}
		}
		return nil
	}, nil
}

// TestMetricsStageStoresPerEpisodeAndMeans runs a metrics stage over
// stored episodes with the built-in distinct-n plugin in its own process:
// each episode gets its values, each system the mean over its episodes,
// and a rerun starts no plugin and changes nothing.
func TestMetricsStageStoresPerEpisodeAndMeans(t *testing.T) {
	l := testspec.Load(t, `package spec

import "mascot.dev/experiments/personas"

name: "test/metrics"
datasets: es: {name: "esconv", path: "`+testspec.ESConv+`", limit: 1}
rosters: support: personas.emotional_support
endpoints: speaker: {urls: ["http://127.0.0.1:1/v1"], model: "m"}
endpoints: [N=("director" | "user")]: {urls: ["http://127.0.0.1:1/v1"], model: "m"}
endpoints: {director: {}, user: {}}
metrics: dn: {plugin: "distinct-n"}
stages: eps: {kind: "episodes", mode: "eval", dataset: "es", roster: "support"}
stages: auto: {kind: "metrics", episodes: "eps", metrics: ["dn"]}
`)
	dir := t.TempDir()
	store, err := results.Open(filepath.Join(dir, "m.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	opts := runner.Options{Loaded: l, Store: store, RunsDir: filepath.Join(dir, "runs"),
		Registry: runner.Default.WithStage("episodes", "test", newFixedEpisodes),
		Services: runner.Services{Plugins: starter{pluginBin(t)}}}
	sum, err := runner.Execute(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := store.RunMetrics(context.Background(), sum.RunID)
	if err != nil {
		t.Fatal(err)
	}
	mean := map[string]float64{}
	for _, r := range rows {
		mean[r.System+"/"+r.Name] = r.Value
	}
	perEpisode := map[string][]float64{}
	for id := int64(1); id <= 3; id++ { // the fresh store's three episodes
		v, err := store.GetEpisodeView(context.Background(), id, sum.RunID)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range v.Metrics {
			if m.EpisodeID != id || m.System != v.Episode.System {
				t.Errorf("episode %d (%s) has metric row %+v", id, v.Episode.System, m)
			}
			perEpisode[m.System+"/"+m.Name] = append(perEpisode[m.System+"/"+m.Name], m.Value)
		}
	}
	want := map[string][]float64{
		"varied/distinct_1": {1}, "varied/distinct_2": {1},
		"repeat/distinct_1": {0.25, 0.5}, "repeat/distinct_2": {0.5, 0.5},
	}
	for k, vs := range want {
		got := perEpisode[k]
		if len(got) != len(vs) {
			t.Errorf("%s: per-episode values %v, want %v", k, got, vs)
			continue
		}
		total := 0.0
		for i := range vs {
			total += vs[i]
			if !containsClose(got, vs[i]) {
				t.Errorf("%s: per-episode values %v lack %v", k, got, vs[i])
			}
		}
		if m, ok := mean[k]; !ok || math.Abs(m-total/float64(len(vs))) > 1e-9 {
			t.Errorf("%s: mean %v (present %v), want %v", k, m, ok, total/float64(len(vs)))
		}
	}
	if len(rows) != 4 {
		t.Errorf("%d mean rows, want one per system and value:\n%+v", len(rows), rows)
	}

	again, err := runner.Execute(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range again.Stages {
		if st.Key == "auto" && (st.Cached != 1 || st.Ran != 0) {
			t.Errorf("rerun of the metrics stage = %+v, want its one unit cached", st)
		}
	}
}

func containsClose(xs []float64, x float64) bool {
	for _, v := range xs {
		if math.Abs(v-x) < 1e-9 {
			return true
		}
	}
	return false
}

// TestRowsSkipFailedValues: a failed episode value and a value past the
// episodes given add no row, and the means cover only what was scored.
func TestRowsSkipFailedValues(t *testing.T) {
	eps := []*results.Episode{{ID: 1, System: "a"}, {ID: 2, System: "a"}, {ID: 3, System: "b"}}
	res := spec.ComputeResult{Values: []spec.EpisodeValues{
		{EpisodeID: "e1", Values: map[string]float64{"x": 2, "y": 1}},
		{EpisodeID: "e2", Values: map[string]float64{"x": 99}, Failed: true},
		{EpisodeID: "e3", Values: map[string]float64{"x": 4}},
		{EpisodeID: "e4", Values: map[string]float64{"x": 100}},
	}}
	rows := metrics.Rows(eps, res)
	type row struct {
		episode int64
		system  string
		name    string
		value   float64
	}
	var got []row
	for _, r := range rows {
		got = append(got, row{r.EpisodeID, r.System, r.Name, r.Value})
	}
	want := []row{{1, "a", "x", 2}, {1, "a", "y", 1}, {3, "b", "x", 4}, {0, "a", "x", 2}, {0, "a", "y", 1}, {0, "b", "x", 4}}
	if len(got) != len(want) {
		t.Fatalf("rows %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("row %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	if string(rows[3].Meta) != `{"aggregate":"mean","n":1}` {
		t.Errorf("aggregate meta %s", rows[3].Meta)
	}
}
