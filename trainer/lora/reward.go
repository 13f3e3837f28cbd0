package lora

import (
	"fmt"
	"slices"

	"mascot.dev/mascot/trainer/qwen3"
)

// RewardModel builds the merged sequence-classification model trainer.md
// §3.6 describes: base's backbone with the adapter merged (a may be nil),
// no lm_head, score.weight [1, hidden], and a config with architectures
// ["Qwen3ForSequenceClassification"], num_labels 1 and pad_token_id.
func RewardModel(base *qwen3.Model, a *Adapter, score *qwen3.Tensor, padTokenID int) (*qwen3.Model, error) {
	cfg := base.Config
	if want := []int{1, cfg.HiddenSize}; score == nil || !slices.Equal(score.Shape, want) {
		return nil, fmt.Errorf("building reward model: score.weight must be %v", want)
	}
	w := base.Weights
	if a != nil {
		var err error
		if w, err = Merge(w, cfg, a); err != nil {
			return nil, fmt.Errorf("building reward model: %w", err)
		}
	}
	out := make(qwen3.Weights, len(w))
	for k, t := range w {
		if k != qwen3.HeadKey {
			out[k] = t
		}
	}
	out[qwen3.ScoreKey] = score
	cfg.Architectures = []string{qwen3.SequenceClassification}
	cfg.NumLabels = 1
	cfg.PadTokenID = &padTokenID
	return qwen3.New(cfg, out)
}

// SaveRewardModel builds RewardModel and saves it to dir in float32.
func SaveRewardModel(dir string, base *qwen3.Model, a *Adapter, score *qwen3.Tensor, padTokenID int) error {
	m, err := RewardModel(base, a, score, padTokenID)
	if err != nil {
		return err
	}
	if err := m.Save(dir); err != nil {
		return fmt.Errorf("saving reward model: %w", err)
	}
	return nil
}
