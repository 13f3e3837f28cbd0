package slurm

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"mascot.dev/mascot/results"
	"mascot.dev/mascot/runner"
	"mascot.dev/mascot/schema"
)

// syncUntilEnded calls `mascot sync` until it says the run ended; the
// deadline only guards against a hang.
func syncUntilEnded(t *testing.T, runs, runID string) string {
	t.Helper()
	deadline := time.Now().Add(4 * time.Minute)
	for {
		out, err := exec.Command(mascotBinary(t), "sync", runID, "--runs-dir", runs).CombinedOutput()
		if err != nil {
			t.Fatalf("mascot sync: %v\n%s", err, out)
		}
		if strings.Contains(string(out), ": complete") || strings.Contains(string(out), "ended with failures") {
			return string(out)
		}
		if time.Now().After(deadline) {
			t.Fatalf("run did not end:\n%s", out)
		}
		time.Sleep(time.Second)
	}
}

// TestSlurmDetachedDAGMatchesLocal is case 3 (success): `run --detach`
// submits pretrain -> eval -> report at once with afterok dependencies
// and returns; `mascot sync` ingests as stages finish, runs the report's
// Finish once everything is in, and a second sync changes nothing. The
// done units equal a local run's.
func TestSlurmDetachedDAGMatchesLocal(t *testing.T) {
	needSlurm(t)
	spec := trainSpec(t)
	ldb, _ := mascotRun(t, "run", spec)
	dir := t.TempDir()
	db, runs := filepath.Join(dir, "m.db"), filepath.Join(dir, "runs")
	out, err := exec.Command(mascotBinary(t), "run", spec, "--set", "executor.kind=slurm", "--detach",
		"--db", db, "--runs-dir", runs).Output()
	if err != nil {
		t.Fatalf("run --detach: %v", err)
	}
	runID := strings.TrimSpace(string(out))
	d, err := LoadDetached(filepath.Join(runs, runID))
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Stages) != 3 || d.Stages[0].Key != "pretrain" || len(d.Stages[2].After) != 2 ||
		d.Stages[2].After[0] != d.Stages[0].JobID || d.Stages[2].After[1] != d.Stages[1].JobID {
		t.Fatalf("stages and dependencies: %+v", d.Stages)
	}
	// The dependency is Slurm's: scontrol shows it on the last job.
	js, err := (&CLI{}).Show(context.Background(), d.Stages[2].JobID)
	if err != nil || len(js) != 1 {
		t.Fatalf("scontrol show job %s: %v %v", d.Stages[2].JobID, js, err)
	}
	final := syncUntilEnded(t, runs, runID)
	if !strings.Contains(final, "finished as run") {
		t.Fatalf("the last sync did not finish the run:\n%s", final)
	}
	q := `SELECT fingerprint FROM units WHERE state = 'done'`
	if a, b := queryStrings(t, ldb, q), queryStrings(t, db, q); strings.Join(a, ",") != strings.Join(b, ",") || len(a) != 4 {
		t.Fatalf("done units differ:\nlocal %v\ndetached %v", a, b)
	}
	// The completed run's report is stored, as a local run's is when it ends.
	if n := queryStrings(t, db, `SELECT COUNT(*) FROM report_cache WHERE run_id = '`+runID+`'`); n[0] == "0" {
		t.Fatalf("no stored report for the detached run %s", runID)
	}
	// Rows point at rows that exist (ids agree between jobs and controller).
	if bad := queryStrings(t, db, `SELECT COUNT(*) FROM turns WHERE episode_id NOT IN (SELECT id FROM episodes)`); bad[0] != "0" {
		t.Fatalf("%s turns point at missing episodes", bad[0])
	}
	before := queryStrings(t, db, `SELECT COUNT(*) FROM turns`)
	again, err := exec.Command(mascotBinary(t), "sync", runID, "--runs-dir", runs).CombinedOutput()
	if err != nil || strings.Contains(string(again), "ingested") || strings.Contains(string(again), "finished as run") {
		t.Fatalf("second sync: %v\n%s", err, again)
	}
	if after := queryStrings(t, db, `SELECT COUNT(*) FROM turns`); after[0] != before[0] || before[0] == "0" {
		t.Fatalf("turns %v after a second sync, %v before", after, before)
	}
	if _, err := os.Stat(filepath.Join(runs, runID, "pretrain", "model.safetensors")); err != nil {
		t.Fatalf("the pretrained model is not in the run directory: %v", err)
	}
}

// TestSlurmDetachedFailureCancelsDependants is case 3 (failure): the first
// stage's job exits 3, so Slurm never starts the others (kill_invalid_depend
// cancels them, or they pend on DependencyNeverSatisfied and sync
// scancels them); sync reports the first failed with its exit code and the
// others cancelled because of it, and ingests nothing.
func TestSlurmDetachedFailureCancelsDependants(t *testing.T) {
	e := needSlurm(t)
	t.Setenv("FAKE_FAIL_STAGE", "pretrain") // sbatch passes the environment on
	l, err := schema.Load(trainSpec(t), runner.Default.Kinds(), schema.Options{Sets: []string{"executor.kind=slurm"}})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	s, err := results.Open(filepath.Join(dir, "m.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	d, err := e.Detach(context.Background(), runner.Options{Loaded: l, Store: s, RunsDir: filepath.Join(dir, "runs")})
	if err != nil {
		t.Fatal(err)
	}
	if e.Submits.Load() != 3 {
		t.Fatalf("%d submits, want 3", e.Submits.Load())
	}
	deadline := time.Now().Add(2 * time.Minute)
	var rep *SyncReport
	for {
		if rep, err = e.Sync(context.Background(), s, d.RunDir); err != nil {
			t.Fatal(err)
		}
		if rep.Ended || time.Now().After(deadline) {
			break
		}
		time.Sleep(500 * time.Millisecond)
	}
	got := map[string]StageStatus{}
	for _, st := range rep.Stages {
		got[st.Key] = st
	}
	if p := got["pretrain"]; p.State != StageFailed || !strings.Contains(p.Msg, "exited with code 3") {
		t.Fatalf("pretrain: %+v", p)
	}
	for _, k := range []string{"eval", "report"} {
		if st := got[k]; st.State != StageCancelled || !strings.Contains(st.Msg, "upstream stage pretrain") {
			t.Fatalf("%s: %+v", k, st)
		}
	}
	if rep.Complete {
		t.Fatal("a run with a failed stage reported complete")
	}
	var n int
	s.Reader().QueryRow(`SELECT COUNT(*) FROM units WHERE state = 'done'`).Scan(&n)
	if n != 0 {
		t.Fatalf("%d units done after a failed first stage", n)
	}
	// Nothing of the run is left in the queue.
	q, err := e.CLI.Queue(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range d.Stages {
		if j, ok := q[st.JobID]; ok && !Terminal(j.State) {
			t.Fatalf("job %s of %s still %s", st.JobID, st.Key, j.State)
		}
	}
}
