package slurm

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

const pollForTests = 100 * time.Millisecond

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }

// fakeSlurm puts the fake sbatch/squeue/scontrol/scancel on PATH and
// returns their state directory.
func fakeSlurm(t *testing.T) string {
	t.Helper()
	bin, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	state := t.TempDir()
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv("FAKE_SLURM", state)
	t.Cleanup(func() {
		// Stop whatever a failed test left running.
		ids, _ := filepath.Glob(filepath.Join(state, "*.pid"))
		for _, p := range ids {
			os.Remove(filepath.Join(state, "hold"))
			b, _ := os.ReadFile(p)
			if pid := strings.TrimSpace(string(b)); pid != "" {
				_ = (&CLI{}).Cancel(context.Background(), strings.TrimSuffix(filepath.Base(p), ".pid"))
			}
		}
	})
	return state
}

func touch(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestFakeSlurmRunsShardsAndIngests(t *testing.T) {
	state := fakeSlurm(t)
	f := newFixture(t, 7)
	e := testExecutor(t)
	var done int
	f.job.Done = func() { done++ }
	counters := map[string]int64{}
	f.job.Count = func(name string, n int64) { counters[name] += n }
	ran, failed, err := e.RunUnits(context.Background(), f.job)
	if err != nil || ran != 7 || failed != 0 {
		t.Fatalf("RunUnits = %d, %d, %v; want 7 ran", ran, failed, err)
	}
	// The shards' counters come back once each, summed.
	if counters["fake_rows"] != 7 || len(counters) != 1 {
		t.Fatalf("counters copied back %v, want fake_rows 7", counters)
	}
	// Files the shards wrote are in the controller's run directory.
	if m, _ := filepath.Glob(filepath.Join(f.job.RunDir, "gen", "shard-*")); len(m) != 3 {
		t.Fatalf("files in the run directory: %v", m)
	}
	if done != 7 || e.Submits.Load() != 1 {
		t.Fatalf("progress %d, submits %d", done, e.Submits.Load())
	}
	if n := f.count(t, `SELECT COUNT(*) FROM run_units WHERE run_id = 'run-1'`); n != 7 {
		t.Fatalf("%d units linked to the run", n)
	}
	if n := f.count(t, `SELECT COUNT(DISTINCT text) FROM candidates`); n != 3 {
		t.Fatalf("candidates came from %d shards, want 3", n)
	}
	log, _ := os.ReadFile(filepath.Join(state, "sbatch.log"))
	if !strings.Contains(string(log), "--parsable") {
		t.Fatalf("sbatch called without --parsable: %s", log)
	}
	script, _ := os.ReadFile(strings.Fields(string(log))[1])
	if !strings.Contains(string(script), "#SBATCH --array=0-2") {
		t.Fatalf("script has no 3-task array:\n%s", script)
	}
	// The attempt record is in the run directory too.
	if _, err := os.Stat(filepath.Join(f.job.RunDir, "jobs", "gen", "attempt-1.json")); err != nil {
		t.Fatal(err)
	}
	// Nothing is pending any more: a second call submits nothing.
	ran, failed, err = e.RunUnits(context.Background(), f.job)
	if err != nil || ran != 0 || failed != 0 || e.Submits.Load() != 1 || counters["fake_rows"] != 7 {
		t.Fatalf("second RunUnits = %d, %d, %v, submits %d, counters %v", ran, failed, err, e.Submits.Load(), counters)
	}
}

func TestFakeSlurmFailedShard(t *testing.T) {
	fakeSlurm(t)
	t.Setenv("FAKE_FAIL_SHARD", "1")
	f := newFixture(t, 6)
	ran, failed, err := testExecutor(t).RunUnits(context.Background(), f.job)
	if ran != 4 || failed != 2 {
		t.Fatalf("ran %d failed %d, want 4 and 2", ran, failed)
	}
	if err == nil || !strings.Contains(err.Error(), "exited with code 3") || !strings.Contains(err.Error(), "log:") {
		t.Fatalf("error %v does not say the exit code and the log", err)
	}
	if n := f.count(t, `SELECT COUNT(*) FROM units WHERE state = 'failed' AND error LIKE '%exited with code 3%'`); n != 2 {
		t.Fatalf("%d units marked failed with the reason", n)
	}
}

func TestFakeSlurmReattachesInsteadOfResubmitting(t *testing.T) {
	state := fakeSlurm(t)
	touch(t, filepath.Join(state, "hold"), "")
	f := newFixture(t, 4)
	first := testExecutor(t)
	// The first controller submits and dies before waiting.
	a, err := first.submit(context.Background(), f.job, first.stageDir(f.job), 1, []string{"fp-00", "fp-01", "fp-02", "fp-03"})
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(state, "hold"))
	second := testExecutor(t)
	ran, failed, err := second.RunUnits(context.Background(), f.job)
	if err != nil || ran != 4 || failed != 0 {
		t.Fatalf("RunUnits after restart = %d, %d, %v", ran, failed, err)
	}
	if second.Submits.Load() != 0 {
		t.Fatalf("restarted controller submitted %d jobs; want it to re-attach to %s", second.Submits.Load(), a.JobID)
	}
	log, _ := os.ReadFile(filepath.Join(state, "sbatch.log"))
	if n := strings.Count(string(log), "\n"); n != 1 {
		t.Fatalf("sbatch ran %d times", n)
	}
}

func TestFakeSlurmPurgedJobReadsExitcodeFile(t *testing.T) {
	state := fakeSlurm(t)
	touch(t, filepath.Join(state, "purge"), "")
	f := newFixture(t, 3)
	ran, failed, err := testExecutor(t).RunUnits(context.Background(), f.job)
	if err != nil || ran != 3 || failed != 0 {
		t.Fatalf("RunUnits = %d, %d, %v", ran, failed, err)
	}
	// The controller may finish (it read the shard's exit code file) while
	// the fake job is still removing its record: wait for that, bounded.
	var ids []string
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if ids, _ = filepath.Glob(filepath.Join(state, "*.state")); len(ids) == 0 || time.Now().After(deadline) {
			break
		}
	}
	if len(ids) != 0 {
		t.Fatalf("the fake kept job records %v", ids)
	}
}

func TestFakeSlurmTimeoutIsExplained(t *testing.T) {
	state := fakeSlurm(t)
	touch(t, filepath.Join(state, "final"), "TIMEOUT")
	t.Setenv("FAKE_FAIL_SHARD", "0")
	f := newFixture(t, 1)
	_, failed, err := testExecutor(t).RunUnits(context.Background(), f.job)
	if failed != 1 || err == nil || !strings.Contains(err.Error(), "time limit") {
		t.Fatalf("failed %d, err %v; want the time limit explained", failed, err)
	}
}

func TestFakeSlurmRejectedSubmission(t *testing.T) {
	state := fakeSlurm(t)
	touch(t, filepath.Join(state, "reject"), "")
	f := newFixture(t, 2)
	_, failed, err := testExecutor(t).RunUnits(context.Background(), f.job)
	if failed != 2 || !errors.Is(err, ErrUnsatisfiable) || !strings.Contains(err.Error(), "slurm.gpus") {
		t.Fatalf("failed %d, err %v", failed, err)
	}
}

func TestFakeSlurmCancelScancels(t *testing.T) {
	state := fakeSlurm(t)
	t.Setenv("FAKE_STAGE_SLEEP", "1")
	f := newFixture(t, 1)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { _, _, err := testExecutor(t).RunUnits(ctx, f.job); errc <- err }()
	pidFile := ""
	for pidFile == "" {
		m, _ := filepath.Glob(filepath.Join(f.dir, "runs", "slurm", "*", "attempt-1", "shards", "0", "grandchild.pid"))
		if len(m) > 0 {
			pidFile = m[0]
		}
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("RunUnits after cancel: %v", err)
	}
	log, _ := os.ReadFile(filepath.Join(state, "scancel.log"))
	if strings.TrimSpace(string(log)) != "101" {
		t.Fatalf("scancel log %q, want job 101", log)
	}
	b, _ := os.ReadFile(pidFile)
	waitGone(t, strings.TrimSpace(string(b)))
}

// waitGone fails unless process pid exits soon (the wrapper forwards
// TERM to its child's session).
func waitGone(t *testing.T, pid string) {
	t.Helper()
	for range 100 {
		if _, err := os.Stat("/proc/" + pid); err != nil {
			return
		}
		if b, _ := os.ReadFile("/proc/" + pid + "/stat"); strings.Contains(string(b), ") Z ") {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("process %s survived the cancel", pid)
}

var sigterm = syscall.SIGTERM
