package slurm

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestEndedShardIsFinalOnTheSecondPoll: a shard that reads FAILED with
// its first run's exit code (143, as a job being requeued can) does not
// count as failed until the next poll still shows it so; a poll that lists
// it PENDING in between starts the count again, and a requeued run that
// ends with exit code 0 succeeds.
func TestEndedShardIsFinalOnTheSecondPoll(t *testing.T) {
	a := &Attempt{JobID: "7", Shards: [][]string{{"u"}}, Dir: t.TempDir()}
	if err := os.MkdirAll(a.ShardDir(0), 0o755); err != nil {
		t.Fatal(err)
	}
	exitcode := filepath.Join(a.ShardDir(0), "exitcode")
	touch(t, exitcode, "143\n")
	e := testExecutor(t) // EndSettle 1 ns: polls, not time, decide here
	log := slog.New(slog.DiscardHandler)
	outs := make([]shardOutcome, 1)
	poll := func(state string) bool {
		return e.step(context.Background(), a, map[string]Job{"7": {ID: "7", State: state}}, outs, log)
	}
	if poll("FAILED") || outs[0].final {
		t.Fatal("final on the first poll that showed it ended")
	}
	if poll("PENDING") || outs[0].final {
		t.Fatal("final while pending again")
	}
	if poll("FAILED") || outs[0].final {
		t.Fatal("final on the first poll that showed it ended after being pending")
	}
	if !poll("FAILED") || !outs[0].final || outs[0].ok || !strings.Contains(outs[0].msg, "exited with code 143") {
		t.Fatalf("after two polls showing it failed: %+v", outs[0])
	}

	outs = make([]shardOutcome, 1)
	for _, s := range []string{"FAILED", "PENDING", "RUNNING"} {
		if poll(s) || outs[0].final {
			t.Fatalf("final at %s: %+v", s, outs[0])
		}
	}
	touch(t, exitcode, "0\n")
	if !poll("COMPLETED") || !outs[0].final || !outs[0].ok {
		t.Fatalf("the requeued run's success: %+v", outs[0])
	}
}

// TestEndedShardWaitsOutEndSettle: however many polls show a task ended
// without success, it is not final before EndSettle has passed since the
// first of them; then it is.
func TestEndedShardWaitsOutEndSettle(t *testing.T) {
	a := &Attempt{JobID: "7", Shards: [][]string{{"u"}}, Dir: t.TempDir()}
	if err := os.MkdirAll(a.ShardDir(0), 0o755); err != nil {
		t.Fatal(err)
	}
	touch(t, filepath.Join(a.ShardDir(0), "exitcode"), "143\n")
	e := testExecutor(t)
	e.EndSettle = 300 * time.Millisecond
	log := slog.New(slog.DiscardHandler)
	outs := make([]shardOutcome, 1)
	poll := func() bool {
		return e.step(context.Background(), a, map[string]Job{"7": {ID: "7", State: "FAILED"}}, outs, log)
	}
	start := time.Now()
	for range 5 {
		if poll() || outs[0].final {
			if time.Since(start) < e.EndSettle {
				t.Fatalf("final %v after the first poll that showed it ended, EndSettle %v", time.Since(start), e.EndSettle)
			}
		}
	}
	time.Sleep(e.EndSettle)
	if !poll() || !outs[0].final || !strings.Contains(outs[0].msg, "exited with code 143") {
		t.Fatalf("after EndSettle: %+v", outs[0])
	}
}
