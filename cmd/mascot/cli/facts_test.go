package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mascot.dev/mascot/internal/buildinfo"
	"mascot.dev/mascot/internal/fakevllm"
	"mascot.dev/mascot/internal/testspec"
)

// TestVersion: mascot --version prints the code version runs record.
func TestVersion(t *testing.T) {
	var out, errb bytes.Buffer
	if code := Run(context.Background(), []string{"--version"}, &out, &errb); code != 0 {
		t.Fatalf("--version: exit %d: %s", code, errb.String())
	}
	if want := "mascot " + buildinfo.Read().String() + "\n"; out.String() != want {
		t.Fatalf("--version printed %q, want %q", out.String(), want)
	}
}

// TestRunJSONPrintsOnlyJSON: with --json, stdout is the run summary alone
// (a report stage's tables go to stderr), and it names the code version.
func TestRunJSONPrintsOnlyJSON(t *testing.T) {
	srv := fakevllm.Start(t, fakevllm.Options{})
	dir := t.TempDir()
	spec := testspec.Write(t, `package spec

import "mascot.dev/experiments/personas"

name: "test/json"
datasets: es: {name: "esconv", path: "`+testspec.ESConv+`", limit: 1}
rosters: support: personas.emotional_support
endpoints: [_]: {urls: ["`+srv.URL()+`"], model: "Qwen/Qwen3-8B"}
endpoints: {director: {}, speaker: {}, user: {}}
stages: eval: {kind: "episodes", mode: "eval", dataset: "es", roster: "support", turns: 1}
stages: rep: {kind: "report", inputs: ["eval"]}
`)
	var out, errb bytes.Buffer
	args := []string{"run", spec, "--json", "--db", filepath.Join(dir, "m.db"), "--runs-dir", filepath.Join(dir, "runs")}
	if code := Run(context.Background(), args, &out, &errb); code != 0 {
		t.Fatalf("run --json: exit %d\n%s", code, errb.String())
	}
	var sum struct {
		RunID string         `json:"run_id"`
		Code  buildinfo.Info `json:"code"`
	}
	dec := json.NewDecoder(bytes.NewReader(out.Bytes()))
	if err := dec.Decode(&sum); err != nil || sum.RunID == "" {
		t.Fatalf("stdout of run --json is not the summary (%v):\n%s", err, out.String())
	}
	if dec.More() || strings.TrimSpace(out.String()[dec.InputOffset():]) != "" {
		t.Fatalf("stdout of run --json holds more than the JSON:\n%s", out.String())
	}
	if sum.Code != buildinfo.Read() {
		t.Fatalf("the summary names code %+v, want %+v", sum.Code, buildinfo.Read())
	}
	if !strings.Contains(errb.String(), "no judgments, metrics or comparisons") {
		t.Fatalf("the report stage's output is not on stderr:\n%s", errb.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "runs", sum.RunID, "run_summary.json")); err != nil {
		t.Fatal(err)
	}
}
