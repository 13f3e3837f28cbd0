package schema_test

import (
	"strings"
	"testing"

	"mascot.dev/mascot/internal/testspec"
	"mascot.dev/mascot/runner"
	"mascot.dev/mascot/schema"
)

const overrideSpec = `package spec

import "mascot.dev/experiments/personas"

name: "override"
datasets: es: {name: "esconv", path: "` + testspec.ESConv + `", limit: 2}
rosters: main: personas.emotional_support
endpoints: [_]: urls: ["http://a/v1"]
endpoints: [!="speaker"]: model: "m"
endpoints: {director: {}, speaker: model: "Qwen/Qwen3-8B", user: {}}
stages: {
	eval: {kind: "episodes", mode: "eval", dataset: "es", roster: "main", turns: 2}
	grpo: {kind: "train-grpo", policy: "speaker", prompts: "eval", rewards: ["fmt"], base_model: endpoints.speaker.model}
}
stages: eval: sampling: temperature: 0.5
rewards: fmt: {kind: "format"}
`

// An override replaces what the spec's own file writes (a concrete 2, in
// a nested struct and in a shorthand), sets what it does not write, and
// references to the field follow it.
func TestOverridesReplaceWhatTheFileWrites(t *testing.T) {
	spec := testspec.Write(t, overrideSpec)
	if _, err := schema.Load(spec, runner.Default.Kinds(), schema.Options{}); err != nil {
		t.Fatal(err)
	}
	if _, err := schema.Load(spec, runner.Default.Kinds(), schema.Options{Sets: []string{"stages.eval.turns=3"}}); err == nil ||
		!strings.Contains(err.Error(), "stages.eval.turns: conflicting values") {
		t.Fatalf("--set of a concrete value: %v, want CUE's conflict", err)
	}
	l, err := schema.Load(spec, runner.Default.Kinds(), schema.Options{Overrides: []string{"stages.eval.turns=3",
		"stages.eval.sampling.temperature=0.9", "endpoints.speaker.model=Qwen/Qwen3-0.6B", "stages.eval.branch_k=4"}})
	if err != nil {
		t.Fatal(err)
	}
	eval := string(l.Experiment.Stages["eval"].Raw)
	for _, want := range []string{`"turns":3`, `"temperature":0.9`, `"branch_k":4`} {
		if !strings.Contains(eval, want) {
			t.Errorf("eval stage %s lacks %s", eval, want)
		}
	}
	if m := l.Experiment.Endpoints["speaker"].Model; m != "Qwen/Qwen3-0.6B" {
		t.Errorf("speaker model %q", m)
	}
	if grpo := string(l.Experiment.Stages["grpo"].Raw); !strings.Contains(grpo, `"base_model":"Qwen/Qwen3-0.6B"`) {
		t.Errorf("a field referring to the overridden one did not follow it: %s", grpo)
	}
	// A pattern constraint's value is not the file's to replace: CUE
	// reports the conflict with both positions.
	_, err = schema.Load(spec, runner.Default.Kinds(), schema.Options{Overrides: []string{"endpoints.user.model=x"}})
	if err == nil || !strings.Contains(err.Error(), "conflicting values") || !strings.Contains(err.Error(), "-m endpoints.user.model") {
		t.Errorf("override of a pattern's value: %v", err)
	}
	if _, err := schema.Load(spec, runner.Default.Kinds(), schema.Options{Overrides: []string{"stages.eval.turns"}}); err == nil ||
		!strings.Contains(err.Error(), "want path=value") {
		t.Errorf("override without a value: %v", err)
	}
}
