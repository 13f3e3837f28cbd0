package episodes_test

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"mascot.dev/mascot/internal/testspec"
	"mascot.dev/mascot/results"
	"mascot.dev/mascot/runner"
	_ "mascot.dev/mascot/runner/stages/all"
	"mascot.dev/mascot/schema"
)

// writeSpec writes an experiment over the demo ESConv and QMSum data whose
// endpoints all point at url, with the given stages block body.
// epFields are the endpoint fields besides urls and model ("" = retries 2,
// timeout 5s).
func writeSpec(t *testing.T, url, epFields, stages string) string {
	t.Helper()
	qm, err := filepath.Abs("../../../experiments/demo/data/qmsum.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if epFields == "" {
		epFields = `retries: 2, timeout: "5s"`
	}
	ep := `{urls: ["` + url + `"], model: "Qwen/Qwen3-8B", ` + epFields + `}`
	src := `package spec

import "mascot.dev/experiments/personas"

name: "test/episodes"
seed: 7
datasets: es: {name: "esconv", path: "` + testspec.ESConv + `", limit: 3}
datasets: qm: {name: "qmsum", path: "` + qm + `", limit: 2}
rosters: support: personas.emotional_support
rosters: meet: personas.meetings
endpoints: director: ` + ep + `
endpoints: speaker: ` + ep + `
endpoints: user: ` + ep + `
stages: {
` + stages + `
}
`
	p := testspec.Write(t, src)
	return p
}

// harness runs experiments against one SQLite store.
type harness struct {
	t     *testing.T
	store *results.Store
	reg   *runner.Registry
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	store, err := results.Open(filepath.Join(t.TempDir(), "m.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	return &harness{t: t, store: store, reg: runner.Default}
}

func (h *harness) run(spec string, trace bool) *runner.Summary {
	h.t.Helper()
	l, err := schema.Load(spec, runner.Default.Kinds(), schema.Options{})
	if err != nil {
		h.t.Fatalf("loading spec: %v", err)
	}
	s, err := runner.Execute(context.Background(), runner.Options{Loaded: l, Store: h.store, Registry: h.reg,
		RunsDir: h.t.TempDir(), Services: runner.Services{Trace: trace}})
	if err != nil {
		h.t.Fatalf("running: %v", err)
	}
	return s
}

func (h *harness) count(q string, args ...any) int {
	h.t.Helper()
	var n int
	if err := h.store.Reader().QueryRow(q, args...).Scan(&n); err != nil {
		h.t.Fatalf("%s: %v", q, err)
	}
	return n
}

// export exports a run and returns its records as generic JSON objects.
func (h *harness) export(runID string) []map[string]any {
	h.t.Helper()
	res, err := h.store.ExportJSONL(context.Background(), runID, h.t.TempDir(),
		results.ExportOptions{IncludeTraining: true})
	if err != nil {
		h.t.Fatalf("exporting: %v", err)
	}
	f, err := os.Open(res.Path)
	if err != nil {
		h.t.Fatal(err)
	}
	defer f.Close()
	var out []map[string]any
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			h.t.Fatalf("export line is not JSON: %v: %s", err, sc.Text())
		}
		out = append(out, m)
	}
	if err := sc.Err(); err != nil {
		h.t.Fatal(err)
	}
	return out
}

// requireKeys fails for every key of keys missing from m.
func requireKeys(t *testing.T, where string, m map[string]any, keys ...string) {
	t.Helper()
	for _, k := range keys {
		if _, ok := m[k]; !ok {
			t.Errorf("%s: missing %q in %v", where, k, keysOf(m))
		}
	}
}

func keysOf(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
