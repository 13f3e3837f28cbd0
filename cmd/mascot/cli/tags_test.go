package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"testing"
)

// TestListJSON: `mascot list --json` names, for every embedded config,
// the tags a run needs and every tag with its default; the paper configs
// need their server URLs, the demo nothing.
func TestListJSON(t *testing.T) {
	var out, errb bytes.Buffer
	if code := Run(context.Background(), []string{"list", "--json"}, &out, &errb); code != 0 {
		t.Fatalf("list --json exited %d: %s", code, errb.String())
	}
	var entries []listEntry
	if err := json.Unmarshal(out.Bytes(), &entries); err != nil {
		t.Fatalf("list --json is not a JSON list of entries: %v\n%s", err, out.String())
	}
	byName := map[string]listEntry{}
	for _, e := range entries {
		byName[e.Name] = e
	}
	if d, ok := byName["demo"]; !ok || len(d.Requires) != 0 || d.Description == "" {
		t.Errorf("demo entry = %+v, want a description and no required tags", d)
	}
	q, ok := byName["paper/qmsum"]
	if !ok || !slices.Equal(q.Requires, []string{"vllm", "judge"}) {
		t.Fatalf("paper/qmsum requires %v, want [vllm judge]", q.Requires)
	}
	var data bool
	for _, tg := range q.Tags {
		if tg.Name == "data" {
			data = !tg.Required && tg.Default == `"data/qmsum"` && tg.Doc != ""
		}
	}
	if !data {
		t.Errorf("paper/qmsum tags %+v: want data optional with default \"data/qmsum\" and its doc", q.Tags)
	}
	ms := byName["paper/model-size"]
	if !slices.Equal(ms.Requires, []string{"vllm_0_6b", "vllm_1_7b", "vllm_8b", "judge"}) {
		t.Errorf("paper/model-size requires %v", ms.Requires)
	}
}
