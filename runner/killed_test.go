package runner_test

import (
	"context"
	"testing"
	"time"

	"mascot.dev/mascot/internal/fakevllm"
	"mascot.dev/mascot/results"
	"mascot.dev/mascot/runner"
	"mascot.dev/mascot/schema"
)

// TestKilledRunReadsInterrupted kills a mascot process mid-run: the run it
// leaves "running" must read as interrupted (its pid is gone on this host),
// and the counters of the units it committed must be there, exactly.
func TestKilledRunReadsInterrupted(t *testing.T) {
	// 9 units of 2 requests, one at a time (the endpoint takes one): about
	// 4.5 s of work, killed at 3 s.
	srv := fakevllm.Start(t, fakevllm.Options{Latency: fakevllm.Latency{Base: 250 * time.Millisecond}})
	spec := candidatesSpec(t, srv.URL(), 2, 1, ", supports_n: false, concurrency: 1")
	store := openStore(t)
	db := store.Path()
	ctx := context.Background()
	began := time.Now()
	cmd, _ := startHelper(t, spec, db)
	var run results.Run
	waitFor(t, "two committed units", func() bool {
		runs, err := store.ListRuns(ctx, results.RunFilter{})
		if err != nil || len(runs) == 0 {
			return false
		}
		run = runs[0].Run
		c, err := store.RunUnitCounts(ctx, run.ID)
		return err == nil && c["cand"].Done >= 2
	})
	if run.Status != results.RunRunning || run.OwnerPID != cmd.Process.Pid {
		t.Fatalf("live run reads %s, owner pid %d; want running, %d", run.Status, run.OwnerPID, cmd.Process.Pid)
	}
	// Long enough for heartbeats: the killed run's duration must be the
	// time it really ran, not 0 s.
	time.Sleep(time.Until(began.Add(3 * time.Second)))
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	lived := time.Since(began)
	_ = cmd.Wait()
	got, err := store.GetRun(ctx, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != results.RunInterrupted {
		t.Fatalf("killed run reads %q, want interrupted", got.Status)
	}
	if d := got.Duration(); d < lived-2*time.Second || d > lived {
		t.Fatalf("killed run's duration %v, want about the %v it ran", d, lived.Round(time.Millisecond))
	}
	listed, err := store.ListRuns(ctx, results.RunFilter{Status: results.RunInterrupted})
	if err != nil || len(listed) != 1 || listed[0].ID != run.ID {
		t.Fatalf("results ls --status interrupted lists %v (%v), want the killed run", listed, err)
	}
	counts, err := store.RunUnitCounts(ctx, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	// What the next run does first: the killed run's attempts whose
	// outcome it never stored are counted, as lost in flight, from its
	// journal.
	lost, err := store.SettleLost(ctx)
	if err != nil {
		t.Fatal(err)
	}
	c, err := store.RunCounters(ctx, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	// K=2 requests per committed unit: the unit in flight when it was
	// killed made none that count as done work. But every attempt sent is
	// counted, recorded before it went out: the server's own count, plus
	// at most the one attempt (concurrency 1) recorded at the kill and not
	// yet sent. Lost are the in-flight unit's attempts: its first reply
	// may have come back without its outcome reaching the journal before
	// the kill, so at most its K=2.
	if want := int64(2 * counts["cand"].Done); c["llm.speaker.requests"] != want {
		t.Fatalf("killed run's counters %v, want %d requests (%d committed units)", c, want, counts["cand"].Done)
	}
	served := srv.Counters().Served["/v1/chat/completions"]
	if a := c["llm.speaker.attempts"]; a < served || a > served+1 {
		t.Fatalf("killed run counts %d attempts, the server received %d", a, served)
	}
	if l := c["llm.speaker.lost_in_flight"]; l != int64(lost) || l > 2 {
		t.Fatalf("killed run counts %d attempts lost in flight, %d were settled as lost; want the same, at most 2 (the unit in flight's)", l, lost)
	}
}

// TestKilledRunsClaimsAheadAreTakenOver kills a mascot process whose stage
// claims its units ahead (8 units in flight, 2 a batch) while the endpoint
// takes one request at a time: units it claimed and started but never ran
// are left running under its claim. The next run takes them over and
// executes every unit the killed one did not commit, once.
func TestKilledRunsClaimsAheadAreTakenOver(t *testing.T) {
	srv := fakevllm.Start(t, fakevllm.Options{Latency: fakevllm.Latency{Base: 150 * time.Millisecond}})
	spec := candidatesSpec(t, srv.URL(), 2, 8, ", supports_n: false, concurrency: 1")
	store := openStore(t)
	db := store.Path()
	ctx := context.Background()
	cmd, _ := startHelper(t, spec, db)
	var first string
	waitFor(t, "a committed unit", func() bool {
		runs, err := store.ListRuns(ctx, results.RunFilter{})
		if err != nil || len(runs) == 0 {
			return false
		}
		first = runs[0].ID
		c, err := store.RunUnitCounts(ctx, first)
		return err == nil && c["cand"].Done >= 1
	})
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	var done, claimed int
	if err := store.Reader().QueryRow(`SELECT COUNT(*) FROM units WHERE state = 'done'`).Scan(&done); err != nil {
		t.Fatal(err)
	}
	if err := store.Reader().QueryRow(`SELECT COUNT(*) FROM unit_claims WHERE run_id = ?`, first).Scan(&claimed); err != nil {
		t.Fatal(err)
	}
	if done == 9 || claimed < 2 {
		t.Fatalf("killed with %d of 9 units done and %d claimed: the test wants a kill mid-stage with units claimed ahead", done, claimed)
	}
	servedBefore := srv.Counters().Served["/v1/chat/completions"]
	// Replies the killed run stored for units it did not commit are reused.
	var stored int
	if err := store.Reader().QueryRow(`SELECT COUNT(*) FROM llm_calls l WHERE l.response_json <> '{}' AND NOT EXISTS
		(SELECT 1 FROM units u WHERE u.state = 'done' AND substr(l.key, 1, length(u.fingerprint) + 1) = u.fingerprint || '|')`).Scan(&stored); err != nil {
		t.Fatal(err)
	}

	l, err := schema.Load(spec, runner.Default.Kinds(), schema.Options{})
	if err != nil {
		t.Fatal(err)
	}
	sum, err := runner.Execute(ctx, runner.Options{Loaded: l, Store: store, RunsDir: t.TempDir()})
	if err != nil {
		t.Fatalf("the run after the kill: %v", err)
	}
	if sum.Ran != 9-done || sum.Cached != done || sum.Failed != 0 {
		t.Fatalf("the run after the kill ran %d, reused %d, failed %d; want %d, %d, 0", sum.Ran, sum.Cached, sum.Failed, 9-done, done)
	}
	if got := srv.Counters().Served["/v1/chat/completions"] - servedBefore; got != int64(2*(9-done)-stored) {
		t.Fatalf("the run after the kill sent %d requests, want %d (K=2 for each of %d units, less %d replies stored)",
			got, 2*(9-done)-stored, 9-done, stored)
	}
	var left int
	if err := store.Reader().QueryRow(`SELECT COUNT(*) FROM unit_claims`).Scan(&left); err != nil || left != 0 {
		t.Fatalf("%d claims left after both runs (%v), want 0", left, err)
	}
}
