package main

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"testing"
)

// resolvedStage is what the ablation test reads of a stage in `mascot show`.
type resolvedStage struct {
	Kind           string `json:"kind"`
	Policy         string `json:"policy"`
	System         string `json:"system"`
	SpeakerAdapter string `json:"speaker_adapter"`
	SFTAdapter     string `json:"sft_adapter"`
	DirectorAdapt  string `json:"director_adapter"`
}

// TestAblationPServesNoStage1Adapter checks paper/ablation-p against the
// paper's MASCOT-P (no persona prompting, no persona alignment): its
// resolved config trains no Speaker and every episodes stage runs the
// generic-speaker system without a speaker or SFT adapter, the speaker
// endpoint serves the base model (no model_stage), and its plan (on the
// shipped data) has no stage-1 stage and an evaluation that reads the
// Director's adapter only. paper/empathetic, the full system, shows what
// the checks would catch.
func TestAblationPServesNoStage1Adapter(t *testing.T) {
	urls := []string{"-t", "vllm=http://127.0.0.1:9/v1", "-t", "judge=http://127.0.0.1:9/v1"}
	data := "data=" + shippedData(t)["empathetic_dialogues"]
	stage1 := func(name string) []string {
		var spec struct {
			Stages    map[string]resolvedStage `json:"stages"`
			Endpoints map[string]struct {
				ModelStage string `json:"model_stage"`
			} `json:"endpoints"`
		}
		if err := json.Unmarshal([]byte(mascot(t, append([]string{"show", name}, urls...)...)), &spec); err != nil {
			t.Fatal(err)
		}
		var found []string
		for key, st := range spec.Stages {
			switch {
			case st.Kind == "candidates", st.Kind == "train-grpo" && st.Policy == "speaker":
				found = append(found, key)
			case st.Kind == "episodes" && st.SpeakerAdapter != "":
				found = append(found, key+".speaker_adapter="+st.SpeakerAdapter)
			case st.Kind == "episodes" && st.SFTAdapter != "":
				found = append(found, key+".sft_adapter="+st.SFTAdapter)
			case st.Kind == "episodes" && name == "paper/ablation-p" && st.System != "mascot-p":
				t.Errorf("%s: stage %s runs system %q, want mascot-p (generic speakers)", name, key, st.System)
			}
		}
		// A speaker endpoint serving a trained model would align the
		// Speakers as surely as an adapter would.
		if ms := spec.Endpoints["speaker"].ModelStage; ms != "" {
			found = append(found, "endpoints.speaker.model_stage="+ms)
		}
		slices.Sort(found)
		return found
	}
	if got := stage1("paper/empathetic"); len(got) < 3 {
		t.Fatalf("paper/empathetic shows only %v of stage 1; the check is blind", got)
	}
	if got := stage1("paper/ablation-p"); len(got) > 0 {
		t.Errorf("paper/ablation-p keeps stage 1: %v", got)
	}

	out := mascot(t, append([]string{"plan", "paper/ablation-p", "--format", "json", "-t", data,
		"--db", filepath.Join(t.TempDir(), "m.db")}, urls...)...)
	plan := plansOf(t, out)[""]
	kinds := map[string]planStage{}
	for _, st := range plan {
		kinds[st.Key] = st
		if st.Kind == "candidates" || st.Key == "speaker_grpo" || st.Key == "persona_rm" {
			t.Errorf("the plan has stage-1 stage %s", st.Key)
		}
	}
	eval, ok := kinds["eval"]
	if !ok || !slices.Equal(eval.Inputs, []string{"director_grpo"}) {
		t.Errorf("eval reads %v, want the Director's adapter only ([director_grpo])", eval.Inputs)
	}
	for _, k := range []string{"independent", "branching"} {
		if st := kinds[k]; len(st.Inputs) != 0 || st.Units <= 0 {
			t.Errorf("%s: inputs %v, units %d; want no adapter input and units counted on the shipped data", k, st.Inputs, st.Units)
		}
	}
}
