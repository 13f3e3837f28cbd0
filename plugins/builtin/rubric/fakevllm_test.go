package rubric

import (
	"context"
	"testing"

	"mascot.dev/mascot/internal/fakevllm"
	"mascot.dev/mascot/plugins/sdk"
	"mascot.dev/mascot/plugins/spec"
)

// Against the project's fake vLLM server: a normal schema-following answer
// is scored, and each scripted malformed answer (body not JSON, truncated
// body, empty content) becomes an error diagnostic, never a partial score.
func TestAgainstFakeVLLM(t *testing.T) {
	srv := fakevllm.Start(t, fakevllm.Options{Script: []fakevllm.Fault{
		fakevllm.FaultNone, fakevllm.FaultMalformed, fakevllm.FaultTruncated, fakevllm.FaultEmpty}})
	defer srv.Close()
	j := newJudge(t, srv.URL(), `{"judges":[{"url":"URL","model":"Qwen/Qwen3-8B","max_retries":0}],"concurrency":1}`)
	var items []sdk.Item
	for _, id := range []string{"normal", "malformed", "truncated", "empty"} {
		items = append(items, sdk.Item{ID: id, Kind: spec.KindCandidate, Response: "I hear you."})
	}
	res, err := j.Score(context.Background(), items)
	if err != nil {
		t.Fatal(err)
	}
	if r := res.Results[0]; spec.HasErrors(r.Diagnostics) || len(r.Scores) != 10 {
		t.Fatalf("normal answer: %+v", r)
	}
	for _, r := range res.Results[1:] {
		if !spec.HasErrors(r.Diagnostics) || len(r.Scores) != 0 {
			t.Fatalf("%s: %+v", r.ItemID, r)
		}
	}
}
