package train

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"mascot.dev/mascot/trainer/autodiff"
	"mascot.dev/mascot/trainer/loss"
	"mascot.dev/mascot/trainer/optim"
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
			LoRA: &autodiff.LoRAConfig{R: 8, Alpha: 16}, OutputDir: filepath.Join(t.TempDir(), "grpo"),
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
