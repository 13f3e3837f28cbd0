package python_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"mascot.dev/mascot/internal/syncbuf"
	"mascot.dev/mascot/plugins/host"
	"mascot.dev/mascot/plugins/spec"
)

// TestPythonJudgeThroughHost starts lengthjudge.py with mascot's plugin host
// (go-plugin handshake, AutoMTLS, health check) and checks Describe,
// Configure diagnostics, scores, a voided item, its stderr log and a
// graceful shutdown.
func TestPythonJudgeThroughHost(t *testing.T) {
	pythonPath := stubs(t)
	log := &syncbuf.Buffer{}
	ctx := context.Background()
	j, err := host.StartJudge(ctx, host.Config{Name: "pylength", Command: script(t),
		Env: []string{"PYTHONPATH=" + pythonPath}, Stderr: log})
	if err != nil {
		t.Fatalf("starting the Python judge: %v\nits stderr:\n%s", err, log)
	}
	info, err := j.Describe(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info.Name != "lengthjudge-py" || len(info.Criteria) != 1 || info.Criteria[0].ID != "conciseness" ||
		info.Scale.Min != 1 || info.Scale.Max != 5 || len(info.ItemKinds) != 2 {
		t.Fatalf("describe: %+v", info)
	}
	if ds, err := j.Configure(ctx, json.RawMessage(`{"target_words": 4}`)); err != nil || len(ds) > 0 {
		t.Fatalf("configure: %v %v", ds, err)
	}
	// 5 - 2*|log2(n/4)|, at least 1, normalised as 100*(s-1)/4.
	res, err := j.Score(ctx, []spec.Item{
		{ID: "on", Kind: spec.KindCandidate, Response: "one two three four"},       // 5 -> 100
		{ID: "double", Kind: spec.KindCandidate, Response: "a b c d e f g h"},      // 3 -> 50
		{ID: "half", Kind: spec.KindTurn, Response: "a\tb"},                        // 3 -> 50
		{ID: "quad", Kind: spec.KindCandidate, Response: strings.Repeat("w ", 16)}, // 1 -> 0
		{ID: "empty", Kind: spec.KindCandidate, Response: " \n "},                  // diagnostic -> voided
	})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{"on": 100, "double": 50, "half": 50, "quad": 0}
	for _, r := range res.Results[:4] {
		if r.Failed || len(r.Scores) != 1 || r.Scores[0].Normalized != want[r.ItemID] || r.Scores[0].CriterionID != "conciseness" {
			t.Errorf("item %s: %+v, want normalised %g", r.ItemID, r, want[r.ItemID])
		}
	}
	if got := res.Results[0].Scores[0].Rationale; got != "4 words against a target of 4" {
		t.Errorf("rationale %q", got)
	}
	if e := res.Results[4]; !e.Failed || e.ItemID != "empty" || len(e.Diagnostics) != 1 ||
		e.Diagnostics[0].Summary != "empty response" || res.AnnotationFailures != 1 {
		t.Errorf("empty item: %+v (annotation failures %d)", e, res.AnnotationFailures)
	}

	ds, err := j.Configure(ctx, json.RawMessage(`{"target_words": -3, "colour": "red"}`))
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, d := range ds {
		paths = append(paths, strings.Join(d.Path, "."))
	}
	if len(ds) != 2 || !slices.Equal(paths, []string{"colour", "target_words"}) {
		t.Fatalf("diagnostics for a bad config: %+v", ds)
	}
	// A refused config leaves the last good one in place.
	res, err = j.Score(ctx, []spec.Item{{ID: "on", Response: "one two three four"}})
	if err != nil || res.Results[0].Failed || res.Results[0].Scores[0].Normalized != 100 {
		t.Fatalf("after a refused config: %+v %v", res, err)
	}

	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	out := log.String()
	if !strings.Contains(out, "lengthjudge.py: target_words=4") {
		t.Errorf("the plugin's stderr did not reach Config.Stderr:\n%s", out)
	}
	// go-plugin kills a plugin that ignores Shutdown, and says so.
	for _, bad := range []string{"failed to exit gracefully", "plugin process exited"} {
		if strings.Contains(out, bad) {
			t.Errorf("host log has %q:\n%s", bad, out)
		}
	}
}

// TestPythonJudgeRunByHand: run without mascot (no magic cookie), the
// plugin explains itself on stderr and exits 1 instead of waiting.
func TestPythonJudgeRunByHand(t *testing.T) {
	pythonPath := stubs(t)
	cmd := exec.Command(script(t))
	cmd.Env = []string{"PYTHONPATH=" + pythonPath}
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || !strings.Contains(string(out), "is a mascot plugin") {
		t.Fatalf("run by hand: %v\n%s", err, out)
	}
}

// TestPythonJudgePinnedByScript: a sha256 pin covers the script the
// shebang runs (the command's first word), not the interpreter, so an
// edited script is refused before it starts.
func TestPythonJudgePinnedByScript(t *testing.T) {
	pythonPath := stubs(t)
	stale := strings.Repeat("0", 64)
	_, err := host.StartJudge(context.Background(), host.Config{Name: "pylength", Command: script(t),
		Env: []string{"PYTHONPATH=" + pythonPath}, SHA256: stale})
	if !errors.Is(err, host.ErrChecksumMismatch) || !strings.Contains(err.Error(), "lengthjudge.py") {
		t.Fatalf("stale pin: %v", err)
	}
}

// TestPythonJudgeRestarted kills the Python process between calls: the host
// starts a new one, replays the last accepted Configure (target 4, not the
// default 40) and answers the call.
func TestPythonJudgeRestarted(t *testing.T) {
	pythonPath := stubs(t)
	ctx := context.Background()
	j, err := host.StartJudge(ctx, host.Config{Name: "pylength", Command: script(t),
		Env: []string{"PYTHONPATH=" + pythonPath}, RestartBackoff: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if ds, err := j.Configure(ctx, json.RawMessage(`{"target_words": 4}`)); err != nil || len(ds) > 0 {
		t.Fatalf("configure: %v %v", ds, err)
	}
	pid := childPID(t, "lengthjudge.py")
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	res, err := j.Score(ctx, []spec.Item{{ID: "on", Response: "one two three four"}})
	if err != nil {
		t.Fatal(err)
	}
	if r := res.Results[0]; r.Failed || r.Scores[0].Normalized != 100 || j.Restarts() != 1 {
		t.Fatalf("after a kill: %+v, %d restarts", r, j.Restarts())
	}
	if childPID(t, "lengthjudge.py") == pid {
		t.Fatal("the killed process still answers")
	}
}

// childPID is the pid of this test's only child process whose command line
// contains name (Linux /proc).
func childPID(t *testing.T, name string) int {
	t.Helper()
	stats, err := filepath.Glob("/proc/[0-9]*/stat")
	if err != nil {
		t.Fatal(err)
	}
	var found []int
	for _, p := range stats {
		b, err := os.ReadFile(p)
		if err != nil {
			continue // the process is gone
		}
		// pid (comm) state ppid ...; comm may hold spaces, so split after ')'.
		fields := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
		if len(fields) < 2 || fields[1] != strconv.Itoa(os.Getpid()) {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join(filepath.Dir(p), "cmdline"))
		if err == nil && bytes.Contains(cmdline, []byte(name)) {
			pid, err := strconv.Atoi(filepath.Base(filepath.Dir(p)))
			if err != nil {
				t.Fatal(err)
			}
			found = append(found, pid)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d child processes run %s, want 1: %v", len(found), name, found)
	}
	return found[0]
}
