package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mascot.dev/mascot/cmd/mascot/cli"
	"mascot.dev/mascot/runner"
)

// runCLI runs one command line in dir and returns its exit code and output.
func runCLI(t *testing.T, dir string, args ...string) (int, string, string) {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chdir(dir); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = os.Chdir(wd) }()
	var out, errb bytes.Buffer
	code := cli.Run(context.Background(), args, &out, &errb)
	return code, out.String(), errb.String()
}

// TestBadStageSelectionExitsTwo: --only and --from naming no stage are bad
// input (exit 2), for plan and run alike, and nothing runs.
func TestBadStageSelectionExitsTwo(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"run", "demo", "--only", "nope"},
		{"run", "demo", "--from", "nope"},
		{"run", "demo", "--only", "pretrain", "--from", "pretrain"},
	} {
		code, _, stderr := runCLI(t, dir, args...)
		if code != cli.ExitInvalid {
			t.Errorf("%v: exit %d, want %d; stderr %s", args, code, cli.ExitInvalid, stderr)
		}
	}
	if _, stderr := runCLIErr(t, dir, "run", "demo", "--only", "nope"); !strings.Contains(stderr, `--only "nope": no such stage (stages: `) {
		t.Errorf("stderr = %s", stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "runs")); err == nil {
		t.Error("a run directory was created for a bad selection")
	}
}

func runCLIErr(t *testing.T, dir string, args ...string) (int, string) {
	code, _, stderr := runCLI(t, dir, args...)
	return code, stderr
}

// TestDBInMissingDirectoryIsAnError: --db in a directory that does not
// exist exits 2 and creates nothing.
func TestDBInMissingDirectoryIsAnError(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "typo", "results", "m.db")
	code, stderr := runCLIErr(t, dir, "plan", "demo", "--db", db)
	if code != cli.ExitInvalid || !strings.Contains(stderr, "directory "+filepath.Dir(db)+" does not exist") {
		t.Errorf("exit %d, stderr %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "typo")); err == nil {
		t.Error("the missing directory was created")
	}
}

// TestEmptyDatasetFailsTheRun: a stage over an empty dataset file fails
// (exit 1, stage failed) instead of finishing "done" with no units.
func TestEmptyDatasetFailsTheRun(t *testing.T) {
	dir := emptyDatasetSpec(t, "empty")
	code, stdout, stderr := runCLI(t, dir, "run", "spec.cue", "--db", "m.db")
	if code != cli.ExitFailure {
		t.Fatalf("exit %d, want %d; stdout %s stderr %s", code, cli.ExitFailure, stdout, stderr)
	}
	if !strings.Contains(stderr+stdout, "no samples") || !strings.Contains(stdout, ": failed in") {
		t.Errorf("stdout %s stderr %s; want the empty dataset named and the run failed", stdout, stderr)
	}
}

// TestRunNameControlCharactersAreEscaped: a spec named with an escape
// sequence is refused by validation (its name quoted in the error), and a
// run given such a name another way (import --name) is printed quoted by
// results ls and report, so it cannot drive the terminal.
func TestRunNameControlCharactersAreEscaped(t *testing.T) {
	const evil = `evil\x1b[2J\x1b]0;pwned\a` // as Go quotes it
	dir := emptyDatasetSpec(t, `evil\u001b[2J\u001b]0;pwned\u0007`)
	code, stdout, stderr := runCLI(t, dir, "run", "spec.cue", "--db", "m.db")
	if code != cli.ExitInvalid || !strings.Contains(stderr, `name "`+evil+`" holds a control character`) {
		t.Errorf("run of a spec named with escapes: exit %d, stderr %q", code, stderr)
	}
	if err := os.WriteFile(filepath.Join(dir, "one.jsonl"), []byte(`{"conv_id": "c1", "turns": [{"turn_idx": 0, "agent_name": "A", "response": "hi"}], "metadata": {"system": "mascot", "dataset": "esconv"}}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	runCLI(t, dir, "import", "one.jsonl", "--db", "m.db", "--name", "evil\x1b[2J\x1b]0;pwned\a")
	_, list, _ := runCLI(t, dir, "results", "ls", "--db", "m.db")
	_, show, _ := runCLI(t, dir, "results", "show", "latest", "--db", "m.db")
	for what, s := range map[string]string{"run": stdout + stderr, "results ls": list, "results show": show} {
		if strings.ContainsRune(s, '\x1b') || strings.ContainsRune(s, '\a') {
			t.Errorf("%s printed a raw control character: %q", what, s)
		}
	}
	if !strings.Contains(list, `"`+evil+`"`) || !strings.Contains(show, `"`+evil+`"`) {
		t.Errorf("list %q or show %q lacks the quoted name", list, show)
	}
}

// TestKindSummariesInHelpAndPlan: each stage kind's Summary is what
// `run --help` lists, and `plan` explains the kinds it shows.
func TestKindSummariesInHelpAndPlan(t *testing.T) {
	dir := t.TempDir()
	_, help, _ := runCLI(t, dir, "run", "--help")
	for _, n := range runner.Default.Names() {
		k, _ := runner.Default.Lookup(n)
		if k.Summary == "" || !strings.Contains(help, k.Summary) {
			t.Errorf("run --help lacks kind %s's summary %q", n, k.Summary)
		}
	}
	code, plan, stderr := runCLI(t, dir, "plan", "demo", "--db", "m.db")
	pretrain, _ := runner.Default.Lookup("pretrain")
	if code != 0 || !strings.Contains(plan, pretrain.Summary+" (device)") {
		t.Errorf("plan (exit %d) lacks the pretrain summary:\n%s%s", code, plan, stderr)
	}
}

// emptyDatasetSpec writes, in a fresh directory, an empty JSONL dataset and
// spec.cue: an experiment called name (a CUE string body) whose candidates
// stage reads it against an unreachable endpoint.
func emptyDatasetSpec(t *testing.T, name string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "test.jsonl"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	spec := `package spec

import "mascot.dev/experiments/personas"

name: "` + name + `"
datasets: d: {name: "jsonl", path: "test.jsonl"}
rosters: support: personas.emotional_support
endpoints: speaker: {urls: ["http://127.0.0.1:9/v1"], model: "m"}
stages: cand: {kind: "candidates", dataset: "d", roster: "support"}
`
	if err := os.WriteFile(filepath.Join(dir, "spec.cue"), []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}
