package runner_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"mascot.dev/mascot/internal/testspec"
	"mascot.dev/mascot/results"
	"mascot.dev/mascot/runner"
	"mascot.dev/mascot/schema"
)

// Environment of a helper process: the test binary re-executed to run one
// experiment as a separate mascot process would.
const (
	helperSpec = "MASCOT_RUNNER_HELPER_SPEC"
	helperDB   = "MASCOT_RUNNER_HELPER_DB"
	helperRuns = "MASCOT_RUNNER_HELPER_RUNS"
)

func TestMain(m *testing.M) {
	if spec := os.Getenv(helperSpec); spec != "" {
		if err := helperRun(spec, os.Getenv(helperDB), os.Getenv(helperRuns)); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// helperRun executes the experiment at spec on the database db and prints
// its summary as JSON.
func helperRun(spec, db, runs string) error {
	l, err := schema.Load(spec, runner.Default.Kinds(), schema.Options{})
	if err != nil {
		return err
	}
	store, err := results.Open(db)
	if err != nil {
		return err
	}
	defer store.Close()
	sum, err := runner.Execute(context.Background(), runner.Options{Loaded: l, Store: store, RunsDir: runs})
	if sum != nil {
		_ = json.NewEncoder(os.Stdout).Encode(sum)
	}
	return err
}

// startHelper starts a helper process running spec on db; its stdout and
// stderr go to files in the test's temporary directory.
func startHelper(t *testing.T, spec, db string) (*exec.Cmd, string) {
	t.Helper()
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperSpec+"="+spec, helperDB+"="+db, helperRuns+"="+filepath.Join(dir, "runs"))
	out := filepath.Join(dir, "stdout")
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	cmd.Stdout = f
	cmd.Stderr = f
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	})
	return cmd, out
}

// helperSummary waits for a helper and decodes the summary it printed.
func helperSummary(t *testing.T, cmd *exec.Cmd, out string) (*runner.Summary, error) {
	t.Helper()
	werr := cmd.Wait()
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var s runner.Summary
	if err := json.Unmarshal(firstLine(b), &s); err != nil {
		t.Fatalf("helper printed no summary (%v): %s", werr, b)
	}
	return &s, werr
}

func firstLine(b []byte) []byte {
	for i, c := range b {
		if c == '\n' {
			return b[:i]
		}
	}
	return b
}

// waitFor polls cond every 20 ms; it gives up (failing the test) after a
// minute, only so that a broken run cannot hang the suite.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(time.Minute); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("gave up waiting for %s", what)
}

// candidatesSpec writes a candidates experiment (3 contexts x 3 personas)
// against url, with K candidates per unit and the stage's concurrency.
func candidatesSpec(t *testing.T, url string, k, conc int, epExtra string) string {
	t.Helper()
	src := fmt.Sprintf(`package spec

import "mascot.dev/experiments/personas"

name: "test/candidates"
datasets: es: {name: "esconv", path: %q, limit: 3}
rosters: support: personas.emotional_support
endpoints: speaker: {urls: [%q], model: "Qwen/Qwen3-8B", retries: 2, timeout: "5s"%s}
stages: cand: {kind: "candidates", dataset: "es", roster: "support", k: %d, concurrency: %d}
`, testspec.ESConv, url, epExtra, k, conc)
	p := testspec.Write(t, src)
	return p
}
