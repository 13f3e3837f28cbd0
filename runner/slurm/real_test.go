package slurm

// Tests against a real single-node Slurm (.ci/slurm/run.sh starts one):
// MASCOT_SLURM=1 go test ./runner/slurm/. MASCOT_SLURM_SLOW=1 adds the
// time-limit test (about 2 minutes).

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"mascot.dev/mascot/internal/fakevllm"
	"mascot.dev/mascot/internal/testspec"
	"mascot.dev/mascot/results"
	"mascot.dev/mascot/runner"
	_ "mascot.dev/mascot/runner/stages/all"
	"mascot.dev/mascot/schema"
)

func needSlurm(t *testing.T) *Executor {
	t.Helper()
	if os.Getenv("MASCOT_SLURM") != "1" {
		t.Skip("set MASCOT_SLURM=1 with a running Slurm (.ci/slurm/run.sh)")
	}
	e := testExecutor(t)
	e.Poll = 300 * time.Millisecond
	e.EndSettle = 0 // the default: a requeued task reads as ended for longer than two polls here
	// Jobs must see the same paths; t.TempDir is on this (only) node.
	return e
}

func TestSlurmSuccessAndFailure(t *testing.T) {
	e := needSlurm(t)
	t.Setenv("FAKE_FAIL_SHARD", "2")
	f := newFixture(t, 6)
	ran, failed, err := e.RunUnits(context.Background(), f.job)
	if ran != 4 || failed != 2 || err == nil || !strings.Contains(err.Error(), "exited with code 3") {
		t.Fatalf("RunUnits = %d, %d, %v", ran, failed, err)
	}
	a, _ := loadAttempts(e.stageDir(f.job))
	// scontrol agrees with the exitcode file.
	js, err := e.CLI.Show(context.Background(), a[0].TaskID(2))
	if err != nil || len(js) != 1 || js[0].State != "FAILED" || js[0].ExitCode != 3 {
		t.Fatalf("scontrol says %+v, %v; want FAILED 3:0", js, err)
	}
	if code, ok := a[0].ExitCode(2); !ok || code != 3 {
		t.Fatalf("exitcode file %d %v", code, ok)
	}
}

func TestSlurmArrayConcurrencyCapAndFakeGPUs(t *testing.T) {
	e := needSlurm(t)
	t.Setenv("FAKE_STAGE_DELAY", "1")
	f := newFixture(t, 6)
	e.MaxShards = 6
	f.slurm.ArrayParallelism = 2
	f.slurm.GPUs = 1
	stop := make(chan struct{})
	most := make(chan int)
	go func() {
		peak := 0
		for {
			select {
			case <-stop:
				most <- peak
				return
			case <-time.After(200 * time.Millisecond):
			}
			q, err := e.CLI.Queue(context.Background())
			if err != nil {
				continue
			}
			n := 0
			for _, j := range q {
				if j.State == "RUNNING" && strings.Contains(j.Name, "mascot-gen") {
					n++
				}
			}
			peak = max(peak, n)
		}
	}()
	ran, failed, err := e.RunUnits(context.Background(), f.job)
	close(stop)
	peak := <-most
	if err != nil || ran != 6 || failed != 0 {
		t.Fatalf("RunUnits = %d, %d, %v", ran, failed, err)
	}
	if peak > 2 || peak == 0 {
		t.Fatalf("%d array tasks ran at once, want 1..2 (%%2)", peak)
	}
	a, _ := loadAttempts(e.stageDir(f.job))
	seen := map[string]bool{}
	for i := range a[0].Shards {
		b, err := os.ReadFile(a[0].LogPath(i))
		if err != nil {
			t.Fatalf("log of task %d: %v", i, err)
		}
		m := regexp.MustCompile(`CUDA_VISIBLE_DEVICES=(\S*)`).FindSubmatch(b)
		if m == nil || len(m[1]) == 0 {
			t.Fatalf("task %d saw no GPU:\n%s", i, b)
		}
		seen[string(m[1])] = true
	}
	if len(seen) < 1 || len(seen) > 2 {
		t.Fatalf("GPUs seen %v", seen)
	}
}

func TestSlurmTooManyGPUsRejected(t *testing.T) {
	e := needSlurm(t)
	f := newFixture(t, 1)
	f.slurm.GPUs = 3
	_, failed, err := e.RunUnits(context.Background(), f.job)
	if failed != 1 || !errors.Is(err, ErrUnsatisfiable) {
		t.Fatalf("failed %d, err %v; want the gpu:3 request rejected clearly", failed, err)
	}
}

func TestSlurmCancelLeavesNoProcess(t *testing.T) {
	e := needSlurm(t)
	t.Setenv("FAKE_STAGE_SLEEP", "1")
	f := newFixture(t, 1)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { _, _, err := e.RunUnits(ctx, f.job); errc <- err }()
	var pidFile string
	for deadline := time.Now().Add(60 * time.Second); pidFile == "" && time.Now().Before(deadline); {
		m, _ := filepath.Glob(filepath.Join(f.dir, "runs", "slurm", "*", "attempt-1", "shards", "0", "grandchild.pid"))
		if len(m) > 0 {
			pidFile = m[0]
		}
		time.Sleep(100 * time.Millisecond)
	}
	if pidFile == "" {
		t.Fatal("the job never started its grandchild")
	}
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("RunUnits after cancel: %v", err)
	}
	b, _ := os.ReadFile(pidFile)
	waitGone(t, strings.TrimSpace(string(b)))
	// The stage-exec process itself is gone too: nothing under the job.
	m, _ := filepath.Glob(filepath.Join(filepath.Dir(pidFile), "exitcode"))
	for deadline := time.Now().Add(10 * time.Second); len(m) == 0 && time.Now().Before(deadline); {
		time.Sleep(100 * time.Millisecond)
		m, _ = filepath.Glob(filepath.Join(filepath.Dir(pidFile), "exitcode"))
	}
	if len(m) == 0 {
		t.Fatal("the wrapper did not finish after scancel (no exitcode file)")
	}
}

func TestSlurmRestartedControllerReattaches(t *testing.T) {
	e := needSlurm(t)
	f := newFixture(t, 3)
	if _, err := e.submit(context.Background(), f.job, e.stageDir(f.job), 1, []string{"fp-00", "fp-01", "fp-02"}); err != nil {
		t.Fatal(err)
	}
	second := needSlurm(t)
	ran, failed, err := second.RunUnits(context.Background(), f.job)
	if err != nil || ran != 3 || failed != 0 || second.Submits.Load() != 0 {
		t.Fatalf("RunUnits = %d, %d, %v with %d submits", ran, failed, err, second.Submits.Load())
	}
}

func TestSlurmTimeLimit(t *testing.T) {
	e := needSlurm(t)
	if os.Getenv("MASCOT_SLURM_SLOW") != "1" {
		t.Skip("set MASCOT_SLURM_SLOW=1 for the time-limit test (about 2 minutes)")
	}
	t.Setenv("FAKE_STAGE_SLEEP", "1")
	f := newFixture(t, 1)
	f.slurm.Time = "1"
	_, failed, err := e.RunUnits(context.Background(), f.job)
	if failed != 1 || err == nil || !strings.Contains(err.Error(), "time limit") {
		t.Fatalf("failed %d, err %v", failed, err)
	}
}

// TestSlurmEndToEndMatchesLocal runs the same candidates experiment
// locally and on Slurm (the real mascot binary in the jobs, a fake vLLM
// on 127.0.0.1) and compares unit fingerprints and rows.
func TestSlurmEndToEndMatchesLocal(t *testing.T) {
	e := needSlurm(t)
	bin := filepath.Join(t.TempDir(), "mascot")
	if out, err := exec.Command("go", "build", "-o", bin, "mascot.dev/mascot/cmd/mascot").CombinedOutput(); err != nil {
		t.Fatalf("building mascot: %v\n%s", err, out)
	}
	e.Binary, e.MaxShards = bin, 3
	srv := fakevllm.Start(t, fakevllm.Options{})
	spec := func(executor string) string {
		src := `package spec

import "mascot.dev/experiments/personas"

name: "test/slurm"
datasets: es: {name: "esconv", path: "` + testspec.ESConv + `", limit: 3}
rosters: support: personas.emotional_support
endpoints: speaker: {urls: ["` + srv.URL() + `"], model: "Qwen/Qwen3-8B", retries: 2, timeout: "5s"}
executor: kind: "` + executor + `"
executor: slurm: array_parallelism: 2
stages: cand: {kind: "candidates", dataset: "es", roster: "support", k: 2}
`
		return testspec.Write(t, src)
	}
	run := func(executor string) (*results.Store, *runner.Summary) {
		l, err := schema.Load(spec(executor), runner.Default.Kinds(), schema.Options{})
		if err != nil {
			t.Fatal(err)
		}
		s, err := results.Open(filepath.Join(t.TempDir(), "m.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		sum, err := runner.Execute(context.Background(), runner.Options{Loaded: l, Store: s, RunsDir: t.TempDir(),
			Services: runner.Services{Executors: map[string]runner.Executor{"slurm": e}}})
		if err != nil {
			t.Fatalf("%s run: %v", executor, err)
		}
		return s, sum
	}
	local, lsum := run("local")
	remote, rsum := run("slurm")
	if lsum.Ran != 9 || rsum.Ran != 9 || e.Submits.Load() != 1 {
		t.Fatalf("local ran %d, slurm ran %d with %d submits; want 9, 9, 1", lsum.Ran, rsum.Ran, e.Submits.Load())
	}
	fps := func(s *results.Store) []string {
		rows, err := s.Reader().Query(`SELECT fingerprint FROM units WHERE state = 'done'`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var out []string
		for rows.Next() {
			var fp string
			rows.Scan(&fp)
			out = append(out, fp)
		}
		sort.Strings(out)
		return out
	}
	if a, b := fps(local), fps(remote); strings.Join(a, ",") != strings.Join(b, ",") || len(a) != 9 {
		t.Fatalf("fingerprints differ:\nlocal %v\nslurm %v", a, b)
	}
	for _, q := range []string{`SELECT COUNT(*) FROM candidates`, `SELECT COUNT(*) FROM run_units`,
		`SELECT COUNT(DISTINCT context_id || persona || sample_idx) FROM candidates`} {
		var a, b int
		local.Reader().QueryRow(q).Scan(&a)
		remote.Reader().QueryRow(q).Scan(&b)
		if a != b || a == 0 {
			t.Fatalf("%s: local %d, slurm %d", q, a, b)
		}
	}
}
