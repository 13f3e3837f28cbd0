package train_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"mascot.dev/mascot/internal/testspec"
	"mascot.dev/mascot/results"
	"mascot.dev/mascot/runner"
	_ "mascot.dev/mascot/runner/stages/train"
	"mascot.dev/mascot/schema"
)

// corpus is a tiny pretraining text: two phrases the model learns.
const corpus = `hello there. how are you today?
i am fine. thank you for asking.
hello there. it is good to see you.
i am fine. let us talk a little.
how are you today? i am fine.
thank you. hello there.`

// writeSpec writes an experiment with the given extra CUE and returns
// its loaded form.
func writeSpec(t *testing.T, body string) *schema.Loaded {
	t.Helper()
	dir := t.TempDir()
	text := filepath.Join(dir, "pretrain.txt")
	if err := os.WriteFile(text, []byte(corpus), 0o644); err != nil {
		t.Fatal(err)
	}
	src := `package spec

import "mascot.dev/experiments/personas"

name: "test/train"
seed: 7
datasets: es: {name: "esconv", path: "` + testspec.ESConv + `", limit: 2}
rosters: support: personas.emotional_support
endpoints: speaker: {urls: ["http://127.0.0.1:9/v1"], model: "none"}
stages: pre: {kind: "pretrain", text: "` + text + `", max_steps: 30, batch_size: 4, max_length: 32,
	model: {hidden_size: 32, intermediate_size: 64, num_attention_heads: 4, num_key_value_heads: 2, head_dim: 8}}
` + body
	p := testspec.Write(t, src)
	l, err := schema.Load(p, runner.Default.Kinds(), schema.Options{})
	if err != nil {
		t.Fatalf("loading spec: %v", err)
	}
	return l
}

// harness runs an experiment against one SQLite store.
type harness struct {
	t     *testing.T
	store *results.Store
	opts  runner.Options
}

func newHarness(t *testing.T, l *schema.Loaded, reg *runner.Registry) *harness {
	t.Helper()
	store, err := results.Open(filepath.Join(t.TempDir(), "m.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	if reg == nil {
		reg = runner.Default
	}
	return &harness{t: t, store: store, opts: runner.Options{Loaded: l, Store: store, RunsDir: t.TempDir(), Registry: reg}}
}

func (h *harness) run() *runner.Summary {
	h.t.Helper()
	s, err := runner.Execute(context.Background(), h.opts)
	if err != nil {
		h.t.Fatalf("run: %v", err)
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

func (h *harness) artifact(kind string) results.Artifact {
	h.t.Helper()
	var a results.Artifact
	var meta string
	err := h.store.Reader().QueryRow(`SELECT kind, path, sha256, bytes, meta_json FROM artifacts WHERE kind = ? ORDER BY id DESC LIMIT 1`, kind).
		Scan(&a.Kind, &a.Path, &a.SHA256, &a.Bytes, &meta)
	if err != nil {
		h.t.Fatalf("artifact %s: %v", kind, err)
	}
	a.Meta = json.RawMessage(meta)
	return a
}

// runID is the latest run's id.
func (h *harness) runID() string {
	h.t.Helper()
	var id string
	if err := h.store.Reader().QueryRow(`SELECT id FROM runs ORDER BY started_at DESC, id DESC LIMIT 1`).Scan(&id); err != nil {
		h.t.Fatal(err)
	}
	return id
}
