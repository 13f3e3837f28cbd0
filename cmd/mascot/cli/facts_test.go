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

// TestResultsShowListsSkippedStages: a stage skipped because its input
// failed is a row of `results show`, with the reason, and `results ls`
// keeps the failed run's own tallies after a successful rerun (a rerun
// once rewrote them to the rerun's).
func TestResultsShowListsSkippedStages(t *testing.T) {
	srv := fakevllm.Start(t, fakevllm.Options{Faults: fakevllm.Faults{ServerError: 1}})
	dir := t.TempDir()
	spec := testspec.Write(t, `package spec

import "mascot.dev/experiments/personas"

name: "test/skipped"
datasets: es: {name: "esconv", path: "`+testspec.ESConv+`", limit: 1}
rosters: support: personas.emotional_support
endpoints: speaker: {urls: ["`+srv.URL()+`"], model: "Qwen/Qwen3-8B", retries: 0, timeout: "5s"}
stages: cand: {kind: "candidates", dataset: "es", roster: "support", k: 2}
stages: more: {kind: "candidates", dataset: "es", roster: "support", k: 2, after: ["cand"]}
`)
	db := filepath.Join(dir, "m.db")
	mascot := func(wantCode int, args ...string) string {
		t.Helper()
		var out, errb bytes.Buffer
		args = append(args, "--db", db)
		if code := Run(context.Background(), args, &out, &errb); code != wantCode {
			t.Fatalf("mascot %s: exit %d, want %d\n%s%s", strings.Join(args, " "), code, wantCode, out.String(), errb.String())
		}
		return out.String()
	}
	mascot(1, "run", spec, "--runs-dir", filepath.Join(dir, "runs"))
	show := mascot(0, "results", "show", "latest")
	var skippedRow, reason bool
	for _, l := range strings.Split(show, "\n") {
		f := strings.Fields(l)
		if len(f) >= 3 && f[0] == "more" && f[1] == "candidates" && f[2] == "skipped" {
			skippedRow = true
		}
		if strings.HasPrefix(l, "  more skipped: ") {
			reason = true
		}
	}
	if !skippedRow || !reason {
		t.Fatalf("results show does not list the skipped stage with its reason:\n%s", show)
	}
	type entry struct {
		ID     string `json:"id"`
		Status string `json:"status"`
		Done   int    `json:"units_done"`
		Cached int    `json:"units_cached"`
		Failed int    `json:"units_failed"`
	}
	list := func() map[string]entry {
		var es []entry
		if err := json.Unmarshal([]byte(mascot(0, "results", "ls", "--json")), &es); err != nil {
			t.Fatal(err)
		}
		m := map[string]entry{}
		for _, e := range es {
			m[e.ID] = e
		}
		return m
	}
	before := list()
	if len(before) != 1 {
		t.Fatalf("results ls lists %d runs, want the one failed run", len(before))
	}
	var failed entry
	for _, e := range before {
		failed = e
	}
	if failed.Status != "failed" || failed.Failed == 0 {
		t.Fatalf("the failed run is listed as %+v", failed)
	}

	// The server answers again: the rerun succeeds, and the failed run's
	// tallies in results ls stay what they were.
	srv.SetFaults(fakevllm.Faults{})
	mascot(0, "run", spec, "--runs-dir", filepath.Join(dir, "runs"))
	after := list()
	if len(after) != 2 {
		t.Fatalf("results ls lists %d runs after the rerun, want 2", len(after))
	}
	if got := after[failed.ID]; got != failed {
		t.Fatalf("the failed run's entry changed after a successful rerun: %+v, was %+v", got, failed)
	}
	for id, e := range after {
		if id != failed.ID && (e.Status != "done" || e.Done == 0 || e.Failed != 0) {
			t.Fatalf("the rerun is listed as %+v", e)
		}
	}
}
