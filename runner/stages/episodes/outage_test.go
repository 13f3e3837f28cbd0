package episodes_test

import (
	"context"
	"errors"
	"testing"

	"mascot.dev/mascot/internal/fakevllm"
	"mascot.dev/mascot/runner"
	"mascot.dev/mascot/schema"
)

// TestOutageFailsUnitsAndRerunRetries: with the server answering 500 to
// everything, no episode can be produced; the units must fail (not be
// cached empty), the run must fail, and the rerun once the server is back
// must run them.
func TestOutageFailsUnitsAndRerunRetries(t *testing.T) {
	srv := fakevllm.Start(t, fakevllm.Options{Seed: 1, Faults: fakevllm.Faults{ServerError: 1}})
	h := newHarness(t)
	spec := writeSpec(t, srv.URL(), `retries: 1, timeout: "2s", concurrency: 4`,
		`ep: {kind: "episodes", dataset: "es", roster: "support", turns: 2, concurrency: 4}`)
	l, err := schema.Load(spec, runner.Default.Kinds(), schema.Options{})
	if err != nil {
		t.Fatal(err)
	}
	opts := runner.Options{Loaded: l, Store: h.store, RunsDir: t.TempDir()}
	sum, err := runner.Execute(context.Background(), opts)
	if !errors.Is(err, runner.ErrStageFailed) {
		t.Fatalf("run during the outage returned %v, want ErrStageFailed", err)
	}
	if sum.Failed != 3 || sum.Ran != 0 || sum.Stages[0].Status != "failed" {
		t.Fatalf("outage run: ran %d, failed %d, stage %s; want 0 ran, 3 failed, stage failed",
			sum.Ran, sum.Failed, sum.Stages[0].Status)
	}
	if n := h.count(`SELECT COUNT(*) FROM units WHERE state = 'done'`); n != 0 {
		t.Fatalf("%d units marked done during the outage", n)
	}
	if got := sum.Counters["llm.director.failures_5xx"] + sum.Counters["llm.speaker.failures_5xx"]; got == 0 {
		t.Fatalf("no final 5xx failures counted: %v", sum.Counters)
	}
	srv.SetFaults(fakevllm.Faults{})
	again, err := runner.Execute(context.Background(), opts)
	if err != nil {
		t.Fatalf("rerun after the outage: %v", err)
	}
	if again.Ran != 3 || again.Failed != 0 || h.count(`SELECT COUNT(*) FROM episodes`) != 3 {
		t.Fatalf("rerun ran %d, failed %d, %d episodes; want 3, 0, 3", again.Ran, again.Failed,
			h.count(`SELECT COUNT(*) FROM episodes`))
	}
	// The two runs' counters together account for every attempt the
	// server saw: the failed units' counts were committed with them.
	attempts := func(s *runner.Summary) int64 {
		return s.Counters["llm.director.attempts"] + s.Counters["llm.speaker.attempts"] + s.Counters["llm.user.attempts"]
	}
	if got, want := attempts(sum)+attempts(again), srv.Counters().Served["/v1/chat/completions"]; got != want {
		t.Fatalf("the runs counted %d + %d attempts, the server saw %d", attempts(sum), attempts(again), want)
	}
}
