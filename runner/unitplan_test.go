package runner_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"mascot.dev/mascot/internal/fakevllm"
	"mascot.dev/mascot/internal/testspec"
	"mascot.dev/mascot/results"
	"mascot.dev/mascot/runner"
	"mascot.dev/mascot/runner/stages/candidates"
	"mascot.dev/mascot/schema"
)

// The tests of a stage's planning in chunks (runner/unitplan.go) run the
// candidates stage over the demo's 40 ESConv dialogues (120 units, 3
// personas each) with concurrency 8: its units are planned in chunks of 8,
// 16, 32 and 64.
const planUnits = 120

func planSpec(t *testing.T, url string) *schema.Loaded {
	t.Helper()
	src := fmt.Sprintf(`package spec

import "mascot.dev/experiments/personas"

name: "test/plan"
datasets: es: {name: "esconv", path: %q}
rosters: support: personas.emotional_support
endpoints: speaker: {urls: [%q], model: "Qwen/Qwen3-8B", retries: 2, timeout: "5s", supports_n: false}
stages: cand: {kind: "candidates", dataset: "es", roster: "support", k: 2, concurrency: 8}
`, testspec.ESConv, url)
	l, err := schema.Load(testspec.Write(t, src), runner.Default.Kinds(), schema.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// hooked wraps the candidates stage: fingerprinting unit i (which encodes
// its inputs) calls hook(i) first. The fingerprints stay the real stage's.
type hooked struct {
	runner.Stage
	hook func(i int)
}

type hookedInputs struct {
	inputs any
	call   func()
}

func (h hookedInputs) MarshalJSON() ([]byte, error) {
	h.call()
	return json.Marshal(h.inputs)
}

func (s hooked) Units(ctx context.Context) ([]runner.Unit, error) {
	units, err := s.Stage.Units(ctx)
	for i := range units {
		units[i].Inputs = hookedInputs{inputs: units[i].Inputs, call: func() { s.hook(i) }}
	}
	return units, err
}

func withHook(hook func(i int)) *runner.Registry {
	return runner.Default.WithStage("candidates", "hooked", func(env *runner.Env, st schema.Stage) (runner.Stage, error) {
		inner, err := candidates.New(env, st)
		return hooked{Stage: inner, hook: hook}, err
	})
}

type stageRow struct {
	status                              string
	total, done, cached, failed, linked int
}

func readStageRow(t *testing.T, store *results.Store, runID string) stageRow {
	t.Helper()
	var r stageRow
	if err := store.Reader().QueryRow(`SELECT status, units_total, units_done, units_cached, units_failed,
		(SELECT COUNT(*) FROM run_units WHERE run_id = ?1) FROM stages WHERE run_id = ?1 AND key = 'cand'`, runID).
		Scan(&r.status, &r.total, &r.done, &r.cached, &r.failed, &r.linked); err != nil {
		t.Fatal(err)
	}
	return r
}

func countRows(t *testing.T, store *results.Store, query string, args ...any) int {
	t.Helper()
	var n int
	if err := store.Reader().QueryRow(query, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// A stage whose first 39 units are done (a run sliced to them)
// reuses them and runs the other 81: the summary, the stage row, the
// run's links and the progress log say so, as when every unit was planned
// before any ran.
func TestPartlyDoneStageIsPlannedInChunks(t *testing.T) {
	srv := fakevllm.Start(t, fakevllm.Options{})
	l := planSpec(t, srv.URL())
	store, err := results.Open(filepath.Join(t.TempDir(), "m.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	first, err := runner.Execute(context.Background(), runner.Options{Loaded: l, Store: store, RunsDir: t.TempDir(),
		Slice: &runner.Slice{Stages: []string{"cand"}, Contexts: 39}})
	if err != nil || first.Ran != 39 {
		t.Fatalf("first run: ran %d units (%v), want 39", first.Ran, err)
	}
	var log bytes.Buffer
	s, err := runner.Execute(context.Background(), runner.Options{Loaded: l, Store: store, RunsDir: t.TempDir(), Progress: &log})
	if err != nil {
		t.Fatal(err)
	}
	st := s.Stages[0]
	if st.Units != planUnits || st.Cached != 39 || st.Ran != 81 || st.Failed != 0 || st.Status != "done" ||
		s.Cached != 39 || s.Ran != 81 {
		t.Fatalf("stage summary %+v (run: %d cached, %d ran), want 120 units, 39 cached, 81 ran", st, s.Cached, s.Ran)
	}
	if got, want := readStageRow(t, store, s.RunID), (stageRow{"done", planUnits, 81, 39, 0, planUnits}); got != want {
		t.Errorf("stage row %+v, want %+v", got, want)
	}
	if n := countRows(t, store, `SELECT COUNT(*) FROM run_units WHERE run_id = ? AND cached = 1`, s.RunID); n != 39 {
		t.Errorf("%d units linked as cached, want 39", n)
	}
	if n := countRows(t, store, `SELECT COUNT(*) FROM candidates`); n != 2*planUnits {
		t.Errorf("%d candidates stored, want %d (K=2 for each unit, once)", n, 2*planUnits)
	}
	if got := srv.Counters().Served["/v1/chat/completions"]; got != 2*planUnits {
		t.Errorf("server answered %d requests over both runs, want %d", got, 2*planUnits)
	}
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(log.String()), "\n") {
		if strings.HasPrefix(l, "stage cand: ") {
			lines = append(lines, l)
		}
	}
	if len(lines) < 2 || lines[0] != "stage cand: 120 units (39 cached)" ||
		!strings.HasPrefix(lines[len(lines)-1], "stage cand: done 120/120 (39 cached)") {
		t.Errorf("progress log:\n%s\nwant its header to count every cached unit and its last line 120/120 (39 cached)", log.String())
	}
}

// The first request goes out before the last unit is fingerprinted: the
// last unit's fingerprinting waits for the server to receive a request,
// which it would wait for in vain if the stage planned every unit first.
func TestFirstRequestBeforeLastUnitIsPlanned(t *testing.T) {
	received := make(chan struct{})
	var once sync.Once
	srv := fakevllm.Start(t, fakevllm.Options{Reply: func(fakevllm.Request) (string, bool) {
		once.Do(func() { close(received) })
		return "", false
	}})
	l := planSpec(t, srv.URL())
	store, err := results.Open(filepath.Join(t.TempDir(), "m.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	var early bool
	reg := withHook(func(i int) {
		if i != planUnits-1 {
			return
		}
		select {
		case <-received:
			early = true
		case <-time.After(30 * time.Second): // the old way: no request comes
		}
	})
	s, err := runner.Execute(context.Background(), runner.Options{Loaded: l, Store: store, RunsDir: t.TempDir(), Registry: reg})
	if err != nil {
		t.Fatal(err)
	}
	if !early {
		t.Error("no request reached the server before the last unit was fingerprinted")
	}
	if s.Ran != planUnits {
		t.Errorf("ran %d units, want %d", s.Ran, planUnits)
	}
}

// Cancelling a run while its stage is still being planned (at the 70th
// unit's fingerprint, once a unit is done: chunks of 8, 16 and 32 are
// handed on, some of their units done, some running) leaves every unit
// either done with its rows or without any, none failed and nothing
// linked that is not done; a rerun runs the rest and reuses what was done.
func TestCancelDuringPlanningLeavesNothingHalfWritten(t *testing.T) {
	srv := fakevllm.Start(t, fakevllm.Options{Latency: fakevllm.Latency{Base: 5 * time.Millisecond}})
	l := planSpec(t, srv.URL())
	store, err := results.Open(filepath.Join(t.TempDir(), "m.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var first atomic.Bool
	first.Store(true)
	reg := withHook(func(i int) {
		if i != 70 || !first.Load() {
			return
		}
		// A guard, not a timing: a unit of the first chunks gets done.
		for end := time.Now().Add(30 * time.Second); time.Now().Before(end); time.Sleep(5 * time.Millisecond) {
			var n int
			if err := store.Reader().QueryRow(`SELECT COUNT(*) FROM units WHERE state = 'done'`).Scan(&n); err == nil && n > 0 {
				break
			}
		}
		cancel()
	})
	s, err := runner.Execute(ctx, runner.Options{Loaded: l, Store: store, RunsDir: t.TempDir(), Registry: reg})
	if !errors.Is(err, context.Canceled) || s == nil || s.Status != results.RunInterrupted {
		t.Fatalf("cancelled run: %v (summary %+v), want it interrupted", err, s)
	}
	first.Store(false)
	done := countRows(t, store, `SELECT COUNT(*) FROM units WHERE state = 'done'`)
	if done == 0 || done >= 56 {
		t.Fatalf("%d units done, want some of the 56 planned before the cancel", done)
	}
	if n := countRows(t, store, `SELECT COUNT(*) FROM units WHERE state = 'failed'`); n != 0 {
		t.Errorf("%d units failed by the cancel, want none (interrupted units stay to be run)", n)
	}
	if n := countRows(t, store, `SELECT COUNT(*) FROM candidates`); n != 2*done {
		t.Errorf("%d candidates stored for %d done units, want 2 each", n, done)
	}
	if n := countRows(t, store, `SELECT COUNT(*) FROM run_units ru JOIN units u USING (fingerprint)
		WHERE ru.run_id = ? AND u.state != 'done'`, s.RunID); n != 0 {
		t.Errorf("%d units linked to the cancelled run that are not done", n)
	}
	if row := readStageRow(t, store, s.RunID); row.status != "failed" || row.done != s.Stages[0].Ran {
		t.Errorf("stage row %+v after the cancel, want failed with the %d units it ran", row, s.Stages[0].Ran)
	}
	again, err := runner.Execute(context.Background(), runner.Options{Loaded: l, Store: store, RunsDir: t.TempDir(),
		Registry: reg})
	if err != nil {
		t.Fatal(err)
	}
	if again.Cached != done || again.Ran != planUnits-done {
		t.Errorf("rerun: %d cached, %d ran; want %d and %d", again.Cached, again.Ran, done, planUnits-done)
	}
	if n := countRows(t, store, `SELECT COUNT(*) FROM candidates`); n != 2*planUnits {
		t.Errorf("%d candidates after the rerun, want %d", n, 2*planUnits)
	}
}
