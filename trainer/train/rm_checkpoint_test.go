package train

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"mascot.dev/mascot/trainer/optim"
	"mascot.dev/mascot/trainer/pass"
	"mascot.dev/mascot/trainer/qwen3"
	"mascot.dev/mascot/trainer/safetensors"
)

// TestRewardModelCheckpointFormat checks the merged reward-model
// checkpoint docs/design/qwen3.md describes: config architectures
// ["Qwen3ForSequenceClassification"], num_labels 1, pad_token_id the
// tokenizer's pad; no lm_head; score.weight [1, hidden]; LoRA folded into
// the backbone (no adapter tensors), loadable as a scorer.
func TestRewardModelCheckpointFormat(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	base := pretrainedBase(t)
	res, err := TrainRewardModel(context.Background(), RMJob{
		Options: Options{Steps: 2, BatchSize: 4, Seed: 2, Optim: optim.Config{LR: 1e-2},
			LoRA: &pass.LoRAConfig{R: 4, Alpha: 8}, OutputDir: filepath.Join(t.TempDir(), "rm")},
		Base: base, Tokenizer: charTok{}, Pairs: syntheticPairs(rng, 8),
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Kind != "model" {
		t.Errorf("kind %q, want model", res.Kind)
	}
	var cfg map[string]any
	raw, err := os.ReadFile(filepath.Join(res.Dir, "config.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &cfg); err != nil {
		t.Fatal(err)
	}
	if arch, _ := cfg["architectures"].([]any); len(arch) != 1 || arch[0] != qwen3.SequenceClassification ||
		cfg["num_labels"] != 1.0 || cfg["pad_token_id"] != float64(charTok{}.Pad()) {
		t.Fatalf("config architectures %v num_labels %v pad_token_id %v", cfg["architectures"], cfg["num_labels"], cfg["pad_token_id"])
	}
	ts, _, err := safetensors.ReadFile(filepath.Join(res.Dir, safetensors.SingleFile))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := ts[qwen3.HeadKey]; ok {
		t.Error("lm_head written")
	}
	D := base.Config.HiddenSize
	if s := ts[qwen3.ScoreKey]; s == nil || !slices.Equal(s.Shape, []int{1, D}) {
		t.Errorf("score.weight missing or not [1, %d]", D)
	}
	for k := range ts {
		if _, ok := base.Weights[k]; !ok && k != qwen3.ScoreKey {
			t.Errorf("tensor %q is not a base or score weight", k)
		}
	}
	rm, err := qwen3.Load(res.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := rm.Score([]int{5, 6, 7}); err != nil || len(got) != 1 {
		t.Fatalf("score: %v %v", got, err)
	}
}
