package runner_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"mascot.dev/mascot/internal/fakevllm"
	"mascot.dev/mascot/results"
	"mascot.dev/mascot/runner"
	"mascot.dev/mascot/schema"
)

// workerExecutor is an executor a test wires in (not Slurm): it does what
// a remote executor does, in this process. It splits a stage's pending
// units in two, runs each half as a shard run (Options.Shard) against its
// own snapshot of the controller's store, as a worker would, and ingests
// the two shard databases into the controller's store.
type workerExecutor struct {
	t      *testing.T
	spec   string   // the experiment, loaded afresh by each worker
	jobs   []string // stage keys handed to it
	handed int      // units handed to it
}

func (e *workerExecutor) RunUnits(ctx context.Context, job *runner.ExecJob) (int, int, error) {
	e.jobs = append(e.jobs, job.StageKey)
	e.handed += len(job.Pending)
	var halves [2][]string
	for i, u := range job.Pending {
		halves[i%2] = append(halves[i%2], u.Fingerprint)
	}
	dir := e.t.TempDir()
	ran := 0
	for i, fps := range halves {
		db := filepath.Join(dir, fmt.Sprintf("shard-%d.db", i))
		if err := results.Snapshot(ctx, job.Store, db); err != nil {
			return ran, len(job.Pending) - ran, err
		}
		if err := e.work(ctx, db, &runner.Shard{Stage: job.StageKey, Units: fps, RunDir: job.RunDir}); err != nil {
			return ran, len(job.Pending) - ran, err
		}
		st, err := results.Ingest(ctx, job.Store, db, job.RunID)
		if err != nil {
			return ran, len(job.Pending) - ran, err
		}
		ran += len(st.Units)
		for range st.Units {
			job.Done()
		}
	}
	return ran, len(job.Pending) - ran, nil
}

// work is one worker: a shard run of the experiment against db.
func (e *workerExecutor) work(ctx context.Context, db string, sh *runner.Shard) error {
	l, err := schema.Load(e.spec, runner.Default.Kinds(), schema.Options{})
	if err != nil {
		return err
	}
	l.Experiment.Executor.Kind = "worker" // a worker ignores it for its shard's stage
	s, err := results.Open(db)
	if err != nil {
		return err
	}
	defer s.Close()
	sum, err := runner.Execute(ctx, runner.Options{Loaded: l, Store: s, RunsDir: filepath.Join(filepath.Dir(db), "runs"), Shard: sh})
	if err != nil {
		return err
	}
	if sum.Ran != len(sh.Units) {
		return fmt.Errorf("worker ran %d units of its %d", sum.Ran, len(sh.Units))
	}
	return nil
}

// TestCustomExecutorRunsStage: the runner hands a stage to whatever
// executor the caller wired in Services.Executors under the experiment's
// executor name, knowing nothing else about it, and the result equals a
// local run's.
func TestCustomExecutorRunsStage(t *testing.T) {
	srv := fakevllm.Start(t, fakevllm.Options{})
	spec := writeSpec(t, srv.URL(), 2)
	run := func(s *results.Store, executor string, services runner.Services) *runner.Summary {
		l, err := schema.Load(spec, runner.Default.Kinds(), schema.Options{})
		if err != nil {
			t.Fatal(err)
		}
		// The schema names local and slurm; the runner takes any name.
		l.Experiment.Executor.Kind = executor
		sum, err := runner.Execute(context.Background(), runner.Options{Loaded: l, Store: s, RunsDir: t.TempDir(), Services: services})
		if err != nil {
			t.Fatalf("%s run: %v", executor, err)
		}
		return sum
	}
	ex := &workerExecutor{t: t, spec: spec}
	wired := runner.Services{Executors: map[string]runner.Executor{"worker": ex}}
	local, remote := openStore(t), openStore(t)
	lsum := run(local, "local", runner.Services{})
	rsum := run(remote, "worker", wired)
	if lsum.Ran != 9 || rsum.Ran != 9 || strings.Join(ex.jobs, ",") != "cand" || ex.handed != 9 {
		t.Fatalf("local ran %d, worker ran %d; executor got stages %v with %d units; want 9, 9, [cand], 9",
			lsum.Ran, rsum.Ran, ex.jobs, ex.handed)
	}
	for _, q := range []string{
		`SELECT group_concat(fingerprint) FROM (SELECT fingerprint FROM units WHERE state = 'done' ORDER BY 1)`,
		`SELECT group_concat(k) FROM (SELECT context_id || '/' || persona || '/' || sample_idx AS k FROM candidates ORDER BY 1)`,
		`SELECT COUNT(*) FROM run_units`,
	} {
		var a, b string
		if err := local.Reader().QueryRow(q).Scan(&a); err != nil {
			t.Fatal(err)
		}
		if err := remote.Reader().QueryRow(q).Scan(&b); err != nil {
			t.Fatal(err)
		}
		if a != b || a == "" || a == "0" {
			t.Fatalf("%s:\nlocal  %s\nworker %s", q, a, b)
		}
	}
	// Nothing is pending the second time: the executor is not called.
	if sum := run(remote, "worker", wired); sum.Ran != 0 || sum.Cached != 9 || len(ex.jobs) != 1 {
		t.Fatalf("rerun: ran %d, cached %d, executor calls %d; want 0, 9, 1", sum.Ran, sum.Cached, len(ex.jobs))
	}
}

// TestUnwiredExecutorFailsTheStage: an executor name the caller did not
// wire (no process-wide registry to fall back on) fails the stage's units
// with a clear error and runs nothing.
func TestUnwiredExecutorFailsTheStage(t *testing.T) {
	srv := fakevllm.Start(t, fakevllm.Options{})
	l, err := schema.Load(writeSpec(t, srv.URL(), 2), runner.Default.Kinds(), schema.Options{})
	if err != nil {
		t.Fatal(err)
	}
	l.Experiment.Executor.Kind = "slurm"
	sum, err := runner.Execute(context.Background(), runner.Options{Loaded: l, Store: openStore(t), RunsDir: t.TempDir()})
	if err == nil || sum == nil || len(sum.Stages) != 1 {
		t.Fatalf("run with an unwired executor: %v, %+v", err, sum)
	}
	if st := sum.Stages[0]; !strings.Contains(st.Error, `executor "slurm" is not available`) || st.Ran != 0 || st.Failed != 9 {
		t.Fatalf("stage %s: ran %d, failed %d, error %q", st.Key, st.Ran, st.Failed, st.Error)
	}
	if c := srv.Counters(); c.TokensOut != 0 {
		t.Fatalf("the endpoint answered completions (%d tokens) for an unwired executor's stage", c.TokensOut)
	}
}

func openStore(t *testing.T) *results.Store {
	t.Helper()
	s, err := results.Open(filepath.Join(t.TempDir(), "m.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}
