package train

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"mascot.dev/mascot/trainer/optim"
	"mascot.dev/mascot/trainer/pass"
)

// GRPO honours max_length: a prompt longer than max_length minus the
// completion budget keeps its last tokens (TRL's left truncation), so every
// trained sequence fits; a rollout function's longer episodes (director
// trajectories) are cut to their last max_length tokens; and a max_length
// that leaves no room for a prompt is refused.
func TestGRPOHonoursMaxLength(t *testing.T) {
	const maxLen, comp = 20, 6
	long := strings.Repeat("the cat sat on a mat ", 3) // 63 tokens
	job := func(out string, rollout RolloutFunc, sink *[]Metrics) GRPOJob {
		return GRPOJob{
			Options: Options{Steps: 2, BatchSize: 2, Seed: 4, Optim: optim.Config{LR: 1e-2}, MaxLength: maxLen,
				LoRA: &pass.LoRAConfig{R: 2, Alpha: 4}, OutputDir: filepath.Join(t.TempDir(), out),
				OnStep: func(m Metrics) { *sink = append(*sink, m) }},
			Base: pretrainedBase(t), Tokenizer: charTok{}, Prompts: []string{long, "a cat " + long},
			GroupSize: 2, Reward: aShare, MaxCompletionTokens: comp, Rollout: rollout,
		}
	}
	var ms []Metrics
	if _, err := TrainGRPO(context.Background(), job("default", nil, &ms)); err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		if n := m.Extra["sequence_length_max"]; n < maxLen-comp || n > maxLen {
			t.Errorf("step %d: longest trained sequence %v tokens, want within [%d, %d] (prompts of %d tokens cut to %d)",
				m.Step, n, maxLen-comp, maxLen, len(charTok{}.Encode(long)), maxLen-comp)
		}
	}
	ms = nil
	if _, err := TrainGRPO(context.Background(), job("director", directorRollout(false), &ms)); err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		if m.Extra["sequence_length_max"] > maxLen || m.Extra["truncated_episodes"] != 4 {
			t.Errorf("step %d: longest episode %v tokens, %v of 4 cut; want ≤ %d and all cut", m.Step,
				m.Extra["sequence_length_max"], m.Extra["truncated_episodes"], maxLen)
		}
	}
	bad := job("bad", nil, &ms)
	bad.MaxLength = comp
	if _, err := TrainGRPO(context.Background(), bad); err == nil || !strings.Contains(err.Error(), "no room for a prompt") {
		t.Errorf("max_length %d with %d completion tokens: error %v, want a refusal", comp, comp, err)
	}
}
