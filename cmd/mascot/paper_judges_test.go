package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestPaperEvaluationUsesEveryDeclaredJudge: a file that imports a paper
// config and declares two more judges on their own endpoints (the paper's
// GPT-4o, Gemma-3-27B, Phi-4) gets the evaluation judged by all three;
// training judges keep the one rubric judge.
func TestPaperEvaluationUsesEveryDeclaredJudge(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "judges.cue")
	src := `package mine

import "mascot.dev/experiments/paper/qmsum"

qmsum
endpoints: [_]: urls: ["http://gpu01:8008/v1"]
endpoints: gpt4o: {model: "gpt-4o", api_key_env: "OPENAI_API_KEY"}
endpoints: phi4: model: "microsoft/phi-4"
judges: gpt4o: {plugin: "rubric", endpoint: "gpt4o"}
judges: phi4: {plugin: "rubric", endpoint: "phi4"}
`
	if err := os.WriteFile(spec, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	var shown struct {
		Stages map[string]struct {
			Judges []string `json:"judges"`
		} `json:"stages"`
	}
	if err := json.Unmarshal([]byte(mascot(t, "show", spec)), &shown); err != nil {
		t.Fatal(err)
	}
	all := []string{"gpt4o", "phi4", "rubric"}
	for _, k := range []string{"judge_eval_agent", "judge_eval_collective"} {
		got := slices.Sorted(slices.Values(shown.Stages[k].Judges))
		if !slices.Equal(got, all) {
			t.Errorf("%s judges %v, want %v", k, got, all)
		}
	}
	if got := shown.Stages["judge_candidates"].Judges; !slices.Equal(got, []string{"rubric"}) {
		t.Errorf("judge_candidates judges %v, want [rubric]", got)
	}
	mascot(t, "validate", spec)
}
