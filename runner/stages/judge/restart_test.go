package judge_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mascot.dev/mascot/internal/fakevllm"
	"mascot.dev/mascot/internal/syncbuf"
	"mascot.dev/mascot/results"
	"mascot.dev/mascot/runner"
)

// dyingStarter serves the built-in plugins through a shell script that
// SIGKILLs itself, before the plugin's handshake, the first `times` times
// it starts the rubric judge: a plugin killed during its handshake.
type dyingStarter struct{ script string }

func newDyingStarter(t *testing.T, bin string, times int) dyingStarter {
	dir := t.TempDir()
	script := filepath.Join(dir, "plugin.sh")
	deaths := filepath.Join(dir, "deaths")
	src := fmt.Sprintf(`#!/bin/sh
if [ "$1" = rubric ] && [ "$(cat %[1]q 2>/dev/null | wc -l)" -lt %[2]d ]; then
	echo "$$" >> %[1]q
	kill -9 $$
fi
exec %[3]q plugin serve "$1"
`, deaths, times, bin)
	if err := os.WriteFile(script, []byte(src), 0o755); err != nil {
		t.Fatal(err)
	}
	return dyingStarter{script: script}
}

func (d dyingStarter) Command(name string) []string { return []string{d.script, name} }

// TestPluginKilledDuringHandshakeStageCompletes: the rubric judge's first
// two processes are killed during their handshake. The judge stage still
// judges every candidate, its counters hold exactly two restarts of the
// plugin, and the run log names each restart with its cause.
func TestPluginKilledDuringHandshakeStageCompletes(t *testing.T) {
	speaker := fakevllm.Start(t, fakevllm.Options{})
	judge := fakevllm.Start(t, fakevllm.Options{Seed: 3})
	store, err := results.Open(filepath.Join(t.TempDir(), "m.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	var log syncbuf.Buffer
	l := judgeSpec(t, speaker.URL(), fmt.Sprintf("%q", judge.URL()), `concurrency: 8`)
	sum, err := runner.Execute(context.Background(), runner.Options{Loaded: l, Store: store, RunsDir: t.TempDir(),
		Log:      slog.New(slog.NewTextHandler(&log, nil)),
		Services: runner.Services{Plugins: newDyingStarter(t, mascotBin(t), 2)}})
	if err != nil {
		t.Fatalf("run with a plugin killed twice in its handshake: %v", err)
	}
	if n := count(t, store, `SELECT COUNT(DISTINCT candidate_id) FROM judgments WHERE judge = 'rubric'`); n != 36 {
		t.Fatalf("%d of 36 candidates judged", n)
	}
	if got := stageSummary(t, sum, "judge_cand").Counters["plugin.rubric.restarts"]; got != 2 {
		t.Errorf("plugin.rubric.restarts = %d, want 2", got)
	}
	if n := strings.Count(log.String(), `msg="plugin restarted"`); n != 2 || !strings.Contains(log.String(), "the process ended (signal: killed) before completing its handshake") {
		t.Errorf("%d restarts logged, want 2 with their cause; log:\n%s", n, log.String())
	}
}
