package rubric

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"mascot.dev/mascot/experiments/prompts"
	"mascot.dev/mascot/plugins/sdk"
	"mascot.dev/mascot/plugins/spec"
)

// TestCriteriaFollowTheCUERubric: what the judge describes, prompts and
// parses is criteria.cue, criterion by criterion and in its order.
func TestCriteriaFollowTheCUERubric(t *testing.T) {
	r := prompts.Paper()
	info, err := New().Describe(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if info.RubricVersion != r.Version {
		t.Errorf("rubric version %q, CUE says %q", info.RubricVersion, r.Version)
	}
	want := r.All()
	if len(info.Criteria) != len(want) {
		t.Fatalf("%d criteria described, CUE has %d", len(info.Criteria), len(want))
	}
	for i, c := range info.Criteria {
		w := want[i]
		if c.ID != w.ID || c.Name != w.Name || c.Description != w.Description || c.Level != w.Level {
			t.Errorf("criterion %d = %s/%q/%s, CUE has %s/%q/%s", i, c.ID, c.Name, c.Level, w.ID, w.Name, w.Level)
		}
		for k, a := range c.Anchors {
			if a.Score != k+1 || a.Text != w.Anchors[k] {
				t.Errorf("%s anchor %d = %d %q, CUE has %q", c.ID, k, a.Score, a.Text, w.Anchors[k])
			}
		}
	}
	for _, lv := range []struct {
		level string
		cs    []prompts.Criterion
		item  sdk.Item
	}{
		{LevelAgent, r.Agent, sdk.Item{Kind: spec.KindTurn, Response: "hi"}},
		{LevelCollective, r.Collective, sdk.Item{Kind: spec.KindEpisode}},
	} {
		crit := criteriaFor(PaperV1(), lv.level, nil)
		system := scorePrompt(crit, lv.item)[0].Content
		at := 0
		named := map[string]any{}
		for _, c := range lv.cs {
			line := fmt.Sprintf("Criterion %s (id: %s): %s\n", c.Name, c.ID, c.Description)
			i := strings.Index(system[at:], line)
			if i < 0 {
				t.Fatalf("%s prompt lacks %q after offset %d", lv.level, line, at)
			}
			at += i + len(line)
			for k, a := range c.Anchors {
				if !strings.HasPrefix(system[at:], fmt.Sprintf("  %d = %s\n", k+1, a)) {
					t.Fatalf("%s: anchor %d not next in the prompt", c.ID, k+1)
				}
				at += strings.Index(system[at:], "\n") + 1
			}
			named[c.Name] = 4
		}
		out, err := json.Marshal(named)
		if err != nil {
			t.Fatal(err)
		}
		got, err := parseScores(string(out), crit)
		if err != nil {
			t.Fatalf("%s: parsing scores keyed by the CUE names: %v", lv.level, err)
		}
		for _, c := range lv.cs {
			if got[c.ID].raw != 4 {
				t.Errorf("%s: parsed %v", c.ID, got[c.ID])
			}
		}
	}
}
