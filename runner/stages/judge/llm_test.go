package judge_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"testing"

	"mascot.dev/mascot/internal/fakevllm"
	"mascot.dev/mascot/internal/testspec"
	"mascot.dev/mascot/results"
	"mascot.dev/mascot/runner"
	"mascot.dev/mascot/schema"
)

// judgeSpec writes candidates (K=4, on speakerURL) judged by the rubric
// judge whose endpoint has the given urls and fields.
func judgeSpec(t *testing.T, speakerURL, judgeURLs, judgeFields string) *schema.Loaded {
	t.Helper()
	src := fmt.Sprintf(`package spec

import "mascot.dev/experiments/personas"

name: "test/judge-llm"
datasets: es: {name: "esconv", path: %q, limit: 3}
rosters: support: personas.emotional_support
endpoints: speaker: {urls: [%q], model: "Qwen/Qwen3-8B"}
endpoints: judge: {urls: [%s], model: "Qwen/Qwen3-8B", sampling: temperature: 0, %s}
judges: rubric: {plugin: "rubric", endpoint: "judge"}
stages: {
	cand: {kind: "candidates", dataset: "es", roster: "support", k: 4}
	judge_cand: {kind: "judge", items: "cand", judges: ["rubric"]}
}
`, testspec.ESConv, speakerURL, judgeURLs, judgeFields)
	l := testspec.Load(t, src)
	return l
}

func runJudge(t *testing.T, l *schema.Loaded, store *results.Store) (*runner.Summary, error) {
	t.Helper()
	return runner.Execute(context.Background(), runner.Options{Loaded: l, Store: store, RunsDir: t.TempDir(),
		Services: runner.Services{Plugins: starter{mascotBin(t)}}})
}

// TestRubricJudgeUsesTheEndpointSettings: the judge endpoint's first
// replica is down and its second answers 429s and 500s. With the
// endpoint's own settings (both replicas, retries: 8) every item is judged,
// and the judge's counters add up to what the server counted.
func TestRubricJudgeUsesTheEndpointSettings(t *testing.T) {
	speaker := fakevllm.Start(t, fakevllm.Options{})
	dead := fakevllm.Start(t, fakevllm.Options{})
	dead.Kill()
	judge := fakevllm.Start(t, fakevllm.Options{Seed: 5, Faults: fakevllm.Faults{ServerError: 0.15, RateLimit: 0.05},
		Script: []fakevllm.Fault{fakevllm.FaultRateLimit, fakevllm.FaultServerError}}) // one of each, whatever the draws
	store, err := results.Open(filepath.Join(t.TempDir(), "m.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	l := judgeSpec(t, speaker.URL(), fmt.Sprintf("%q, %q", dead.URL(), judge.URL()), `retries: 8, timeout: "5s", concurrency: 8`)
	sum, err := runJudge(t, l, store)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	if n := count(t, store, `SELECT COUNT(DISTINCT candidate_id) FROM judgments WHERE judge = 'rubric'`); n != 36 {
		t.Fatalf("%d of 36 candidates judged", n)
	}
	c := stageSummary(t, sum, "judge_cand").Counters
	f, served := judge.Counters().Faults, judge.Counters().Served["/v1/chat/completions"]
	role := "llm.judge:judge."
	if f[fakevllm.FaultServerError] == 0 || f[fakevllm.FaultRateLimit] == 0 {
		t.Fatalf("the draw injected too few faults: %v", f)
	}
	// Attempts reach the live replica (served) or fail to connect to the
	// dead one (cause "other").
	for _, x := range []struct {
		name      string
		got, want int64
	}{
		{"attempts", c[role+"attempts"], served + c[role+"retries_other"] + c[role+"failures_other"]},
		{"429s", c[role+"retries_429"] + c[role+"failures_429"], f[fakevllm.FaultRateLimit]},
		{"5xx", c[role+"retries_5xx"] + c[role+"failures_5xx"], f[fakevllm.FaultServerError]},
		{"failures", c[role+"failures"], 0},
		{"tokens_in", c[role+"tokens_in"], judge.Counters().TokensIn},
		{"tokens_out", c[role+"tokens_out"], judge.Counters().TokensOut},
		{"requests", c[role+"requests"], 36},
	} {
		if x.got != x.want {
			t.Errorf("%s: %d counted, want %d; counters %v", x.name, x.got, x.want, c)
		}
	}
	if _, ok := c["plugin.rubric.restarts"]; !ok {
		t.Errorf("no plugin.rubric.restarts counter: %v", c)
	}
}

// TestJudgeUnitWithGivenUpItemsFails: items whose judge requests failed
// for good fail their unit (nothing of it is kept), and the rerun once the
// judge answers again judges exactly those units.
func TestJudgeUnitWithGivenUpItemsFails(t *testing.T) {
	speaker := fakevllm.Start(t, fakevllm.Options{})
	judge := fakevllm.Start(t, fakevllm.Options{Seed: 9, Faults: fakevllm.Faults{ServerError: 0.5}})
	store, err := results.Open(filepath.Join(t.TempDir(), "m.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	l := judgeSpec(t, speaker.URL(), fmt.Sprintf("%q", judge.URL()), `retries: 1, timeout: "5s"`)
	first, err := runJudge(t, l, store)
	if !errors.Is(err, runner.ErrStageFailed) {
		t.Fatalf("run with given-up judge requests returned %v, want ErrStageFailed", err)
	}
	s := stageSummary(t, first, "judge_cand")
	if s.Failed == 0 || s.Counters["llm.judge:judge.failures"] == 0 {
		t.Fatalf("judge_cand: %d units failed, %d requests failed for good; want both > 0", s.Failed,
			s.Counters["llm.judge:judge.failures"])
	}
	judged := count(t, store, `SELECT COUNT(DISTINCT candidate_id) FROM judgments WHERE judge = 'rubric'`)
	if judged != 4*s.Ran {
		t.Fatalf("%d candidates judged, want 4 per done unit (%d): a failed unit left rows", judged, s.Ran)
	}
	judge.SetFaults(fakevllm.Faults{})
	again, err := runJudge(t, l, store)
	if err != nil {
		t.Fatalf("rerun: %v", err)
	}
	if r := stageSummary(t, again, "judge_cand"); r.Ran != s.Failed || r.Cached != s.Ran {
		t.Fatalf("rerun ran %d, cached %d; want the %d failed units run and %d cached", r.Ran, r.Cached, s.Failed, s.Ran)
	}
	if n := count(t, store, `SELECT COUNT(DISTINCT candidate_id) FROM judgments WHERE judge = 'rubric'`); n != 36 {
		t.Fatalf("%d of 36 candidates judged after the rerun", n)
	}
}

// TestJudgeRerunSendsOnlyGivenUpItems: judge replies are cached per
// request, like every other role's. Three judge requests fail for good,
// which fails their units; the rerun sends exactly those three requests
// (the other items of the failed units are answered from the cache) and
// every candidate is judged.
func TestJudgeRerunSendsOnlyGivenUpItems(t *testing.T) {
	speaker := fakevllm.Start(t, fakevllm.Options{})
	fail := fakevllm.FaultServerError
	judge := fakevllm.Start(t, fakevllm.Options{Script: []fakevllm.Fault{fail, fail, fail}})
	store, err := results.Open(filepath.Join(t.TempDir(), "m.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	l := judgeSpec(t, speaker.URL(), fmt.Sprintf("%q", judge.URL()), `retries: 0, timeout: "5s"`)
	first, err := runJudge(t, l, store)
	if !errors.Is(err, runner.ErrStageFailed) {
		t.Fatalf("a run with 3 given-up judge requests returned %v, want ErrStageFailed", err)
	}
	s := stageSummary(t, first, "judge_cand")
	if s.Failed == 0 || s.Counters["llm.judge:judge.failures"] != 3 {
		t.Fatalf("judge_cand: %d units failed, %d requests failed for good; want some and 3", s.Failed,
			s.Counters["llm.judge:judge.failures"])
	}
	sent := judge.Counters().Served["/v1/chat/completions"]
	if sent != 36 {
		t.Fatalf("the first run sent %d judge requests, want 36 (one per candidate)", sent)
	}
	again, err := runJudge(t, l, store)
	if err != nil {
		t.Fatalf("rerun: %v", err)
	}
	if resent := judge.Counters().Served["/v1/chat/completions"] - sent; resent != 3 {
		t.Fatalf("the rerun sent %d judge requests, want only the 3 of the given-up items", resent)
	}
	r := stageSummary(t, again, "judge_cand")
	if r.Ran != s.Failed || r.Counters["llm.judge:judge.cache_hits"] != int64(4*s.Failed-3) {
		t.Fatalf("rerun ran %d units with %d cache hits; want %d units and %d hits", r.Ran,
			r.Counters["llm.judge:judge.cache_hits"], s.Failed, 4*s.Failed-3)
	}
	if n := count(t, store, `SELECT COUNT(DISTINCT candidate_id) FROM judgments WHERE judge = 'rubric'`); n != 36 {
		t.Fatalf("%d of 36 candidates judged after the rerun", n)
	}
}

// TestTraceRecordsJudgeRequests: --trace-role-calls records the judge's
// requests (made by the plugin process, through the run's LLM gateway)
// with the model id each really asked for, like every other role's.
func TestTraceRecordsJudgeRequests(t *testing.T) {
	speaker := fakevllm.Start(t, fakevllm.Options{})
	judge := fakevllm.Start(t, fakevllm.Options{})
	store, err := results.Open(filepath.Join(t.TempDir(), "m.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	l := judgeSpec(t, speaker.URL(), fmt.Sprintf("%q", judge.URL()), `timeout: "5s"`)
	if _, err := runner.Execute(context.Background(), runner.Options{Loaded: l, Store: store, RunsDir: t.TempDir(),
		Services: runner.Services{Plugins: starter{mascotBin(t)}, Trace: true}}); err != nil {
		t.Fatal(err)
	}
	n := count(t, store, `SELECT COUNT(*) FROM llm_calls WHERE role = 'judge:judge@judge' AND model_id = 'Qwen/Qwen3-8B'
		AND key IS NULL AND cached = 0`)
	if served := judge.Counters().Served["/v1/chat/completions"]; int64(n) != served || n != 36 {
		t.Fatalf("%d judge requests traced, the judge server answered %d (want 36)", n, served)
	}
	if m := count(t, store, `SELECT COUNT(*) FROM llm_calls WHERE role = 'speaker@speaker' AND key IS NULL`); m == 0 {
		t.Fatal("no speaker request traced")
	}
}
