package host_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/hashicorp/go-plugin"

	"mascot.dev/mascot/plugins/host"
	"mascot.dev/mascot/plugins/internal/fakejudge"
	"mascot.dev/mascot/plugins/sdk"
	"mascot.dev/mascot/plugins/spec"
)

// inMemoryJudge connects host and plugin over an in-memory gRPC
// connection (level a: no process).
func inMemoryJudge(t *testing.T, impl sdk.Judge) *host.PluginJudge {
	t.Helper()
	client, _ := plugin.TestPluginGRPCConn(t, false, sdk.JudgePluginSet(impl))
	t.Cleanup(func() { client.Close() })
	raw, err := client.Dispense("judge")
	if err != nil {
		t.Fatal(err)
	}
	return host.WrapJudge("fake", raw.(host.Judge))
}

func TestInMemoryScore(t *testing.T) {
	ctx := context.Background()
	j := inMemoryJudge(t, &fakejudge.Judge{})
	info, err := j.Describe(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info.RubricVersion != "fake_v1" || len(info.Criteria) != 2 || info.Scale.Max != 5 {
		t.Fatalf("describe: %+v", info)
	}
	one := 1
	items := []spec.Item{
		{ID: "a", Kind: spec.KindCandidate, Response: "one two", Context: []spec.Turn{{Text: "hi", RoundID: &one}}},
		{ID: "b", Kind: spec.KindCandidate, Response: "one two three four five six"},
	}
	res, err := j.Score(ctx, items)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Results) != 2 || res.AnnotationFailures != 0 {
		t.Fatalf("results: %+v", res)
	}
	// "one two" has 2 words: clarity raw 2 -> 100*(2-1)/4 = 25; brevity 4 -> 75.
	a := res.Results[0]
	if a.ItemID != "a" || a.Scores[0].Raw != 2 || a.Scores[0].Normalized != 25 || a.Scores[1].Normalized != 75 {
		t.Fatalf("item a: %+v", a)
	}
	// Six words clamp to 5 -> 100; brevity 1 -> 0.
	if b := res.Results[1]; b.Scores[0].Normalized != 100 || b.Scores[1].Normalized != 0 {
		t.Fatalf("item b: %+v", b)
	}
	if a.RawOutputs[0].Text != "one two" || a.Scores[0].Rationale != "word count" {
		t.Fatalf("raw output or rationale lost: %+v", a)
	}
}

func TestMalformedScoresVoidItems(t *testing.T) {
	ctx := context.Background()
	j := inMemoryJudge(t, &fakejudge.Judge{})
	ds, err := j.Configure(ctx, json.RawMessage(`{"mode":"malformed"}`))
	if err != nil || len(ds) != 0 {
		t.Fatalf("configure: %v %v", ds, err)
	}
	res, err := j.Score(ctx, []spec.Item{
		{ID: "good", Response: "fine words"},
		{ID: "bad-range", Response: "x y"},
		{ID: "bad-parse", Response: "x y z"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.AnnotationFailures != 2 {
		t.Fatalf("annotation failures = %d, want 2", res.AnnotationFailures)
	}
	if r := res.Results[0]; r.Failed || len(r.Scores) != 2 {
		t.Fatalf("good item: %+v", r)
	}
	for _, r := range res.Results[1:] {
		// The fake returned a valid brevity score next to the bad one: no
		// partial rows may survive.
		if !r.Failed || len(r.Scores) != 0 || len(r.Diagnostics) == 0 {
			t.Fatalf("item %s not voided: %+v", r.ItemID, r)
		}
	}
	if !strings.Contains(res.Results[1].Diagnostics[0].Summary, "off the scale") {
		t.Fatalf("diagnostic: %+v", res.Results[1].Diagnostics)
	}
}

func TestConfigureDiagnostics(t *testing.T) {
	j := inMemoryJudge(t, &fakejudge.Judge{})
	ds, err := j.Configure(context.Background(), json.RawMessage(`{"mode":"loud","colour":1}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(ds) != 1 || ds[0].Path[0] != "colour" || ds[0].Summary != "unknown config field" {
		t.Fatalf("diagnostics: %+v", ds)
	}
	ds, _ = j.Configure(context.Background(), json.RawMessage(`{"mode":"loud"}`))
	if len(ds) != 1 || ds[0].Path[0] != "mode" {
		t.Fatalf("diagnostics: %+v", ds)
	}
}

func TestBatchesSplitUnderLimit(t *testing.T) {
	counter := &countingJudge{Judge: &fakejudge.Judge{}}
	j := host.WrapJudgeSplit("fake", counter, 1000)
	var items []spec.Item
	for i := range 10 {
		items = append(items, spec.Item{ID: string(rune('a' + i)), Response: strings.Repeat("w ", 150)})
	}
	items = append(items, spec.Item{ID: "huge", Response: strings.Repeat("w ", 2000)})
	res, err := j.Score(context.Background(), items)
	if err != nil {
		t.Fatal(err)
	}
	// Each item is ~330 bytes, so at most 3 fit under 1000: 10 items -> 4 calls.
	if counter.calls != 4 || counter.maxBatch > 3 {
		t.Fatalf("calls=%d maxBatch=%d", counter.calls, counter.maxBatch)
	}
	if len(res.Results) != 11 || !res.Results[10].Failed || res.Results[9].Failed || res.Results[9].ItemID != "j" {
		t.Fatalf("results order or huge item: %+v", res.Results[9:])
	}
}

type countingJudge struct {
	*fakejudge.Judge
	calls, maxBatch int
}

func (c *countingJudge) Score(ctx context.Context, items []spec.Item) (spec.ScoreResult, error) {
	c.calls++
	c.maxBatch = max(c.maxBatch, len(items))
	return c.Judge.Score(ctx, items)
}

func TestInMemoryMetric(t *testing.T) {
	client, _ := plugin.TestPluginGRPCConn(t, false, sdk.MetricPluginSet(fakejudge.Metric{}))
	defer client.Close()
	raw, err := client.Dispense("metric")
	if err != nil {
		t.Fatal(err)
	}
	m := host.WrapMetric("fake-metric", raw.(host.Metric))
	res, err := m.Compute(context.Background(), []spec.Episode{
		{ID: "e1", Turns: []spec.Turn{{Text: "a b"}, {Text: "c"}}},
		{ID: "e2", Turns: []spec.Turn{{Text: "a b c d"}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	// turns: (2+1)/2 = 1.5; words: (3+4)/2 = 3.5
	if res.Aggregate["turns"] != 1.5 || res.Aggregate["words"] != 3.5 || res.Values[1].Values["words"] != 4 {
		t.Fatalf("metric: %+v", res)
	}
}
