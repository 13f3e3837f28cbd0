package train

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"mascot.dev/mascot/trainer/loss"
	"mascot.dev/mascot/trainer/optim"
	"mascot.dev/mascot/trainer/pass"
)

// aShare is the rule-based reward: the share of letters that are 'a'.
func aShare(_ context.Context, _, completion string) (float64, error) {
	letters := strings.Count(completion, "") - 1 - strings.Count(completion, " ")
	if letters <= 0 {
		return 0, nil
	}
	return float64(strings.Count(completion, "a")) / float64(letters), nil
}

func TestGRPORaisesRuleReward(t *testing.T) {
	var rewards []float64
	var kls []float64
	res, err := TrainGRPO(context.Background(), GRPOJob{
		Options: Options{Steps: 30, BatchSize: 4, GradAccum: 2, Seed: 4, Optim: optim.Config{LR: 2e-2},
			LoRA: &pass.LoRAConfig{R: 8, Alpha: 16}, OutputDir: filepath.Join(t.TempDir(), "grpo"),
			OnStep: func(m Metrics) { rewards = append(rewards, m.RewardMean); kls = append(kls, m.KL) }},
		Base: pretrainedBase(t), Tokenizer: charTok{}, Prompts: []string{"the", "a cat", "is the", "dog"},
		GroupSize: 8, Reward: aShare, MaxCompletionTokens: 8,
		Loss: loss.GRPOConfig{Beta: 0.04, LossType: loss.LossDAPO},
	})
	if err != nil {
		t.Fatal(err)
	}
	first, last := mean(rewards[:5]), mean(rewards[len(rewards)-5:])
	t.Logf("grpo reward %.3f → %.3f, final KL %.4f", first, last, kls[len(kls)-1])
	if last < first+0.15 {
		t.Errorf("GRPO reward went %.3f → %.3f, want a rise of at least 0.15 within 30 steps", first, last)
	}
	if kls[len(kls)-1] <= 0 {
		t.Errorf("KL to the adapter-disabled base is %g after training, want > 0", kls[len(kls)-1])
	}
	if res.Kind != "adapter" || res.Files["adapter_model.safetensors"] == "" {
		t.Errorf("result %+v", res)
	}
}

// TestGRPONumIterationsReusesGeneration checks μ = 2: the second step of a
// generation batch sees ratios ≠ 1 (old log-probs from generation time),
// which with a tight epsilon clips tokens, while first steps never clip.
func TestGRPONumIterationsReusesGeneration(t *testing.T) {
	var ms []Metrics
	_, err := TrainGRPO(context.Background(), GRPOJob{
		Options: Options{Steps: 4, BatchSize: 2, Seed: 9, Optim: optim.Config{LR: 5e-2},
			LoRA: &pass.LoRAConfig{R: 4, Alpha: 8}, OutputDir: filepath.Join(t.TempDir(), "mu"),
			OnStep: func(m Metrics) { ms = append(ms, m) }},
		Base: pretrainedBase(t), Tokenizer: charTok{}, Prompts: []string{"the", "a cat"},
		GroupSize: 4, Reward: aShare, MaxCompletionTokens: 6, NumIterations: 2,
		Loss: loss.GRPOConfig{Epsilon: 0.01, LossType: loss.LossGRPO, Sequence: false},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		if m.Step%2 == 1 && m.ClipFraction != 0 {
			t.Errorf("first step of a generation (step %d) clipped %g of tokens, want 0", m.Step, m.ClipFraction)
		}
	}
	if ms[1].ClipFraction == 0 && ms[3].ClipFraction == 0 {
		t.Error("second iterations never clipped with epsilon 0.01; old log-probs not used")
	}
	if ms[0].RewardMean != ms[1].RewardMean {
		t.Errorf("steps 1 and 2 saw different rewards (%g, %g); the generation batch was not reused", ms[0].RewardMean, ms[1].RewardMean)
	}
}
