package results

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
)

// The stage-level metrics (episode_id NULL, system = the stage key) in
// which training stages record their held-out evaluation: reward models
// and DPO policies on pairs of queries they did not train on, GRPO
// policies on prompts they did not train on, pretraining on lines and SFT
// on contexts it did not train on.
const (
	MetricHeldoutAccuracy       = "heldout_accuracy"
	MetricHeldoutAccuracyBefore = "heldout_accuracy_before"
	MetricHeldoutLoss           = "heldout_loss"
	MetricHeldoutLossBefore     = "heldout_loss_before"
	MetricHeldoutExamples       = "heldout_examples"
	MetricHeldoutTokens         = "heldout_tokens"
	MetricHeldoutPairs          = "heldout_pairs"
	MetricHeldoutRewardBefore   = "heldout_reward_before"
	MetricHeldoutRewardAfter    = "heldout_reward_after"
	MetricHeldoutDeltaCILow     = "heldout_reward_delta_ci_low"
	MetricHeldoutDeltaCIHigh    = "heldout_reward_delta_ci_high"
	MetricHeldoutPrompts        = "heldout_prompts"
)

// Heldout is one training stage's held-out evaluation, as `mascot
// results show` prints it under the stage (heldout.accuracy, ...).
type Heldout struct {
	// Accuracy and Loss are figures on the held-out data after training:
	// a reward model's pairwise accuracy and Bradley–Terry loss; a DPO
	// policy's preference accuracy (chosen's implicit reward above the
	// rejected's) and DPO loss; a language model's (pretrain, train-sft)
	// mean NLL per token, with no accuracy. Pairs counts the held-out
	// pairs.
	Accuracy *float64 `json:"accuracy,omitempty"`
	Loss     *float64 `json:"loss,omitempty"`
	Pairs    int      `json:"pairs,omitempty"`
	// AccuracyBefore and LossBefore are the same figures before training
	// (pretrain, train-sft and train-dpo); Perplexity and
	// PerplexityBefore are exp of a language model's loss, computed when
	// it is read (a stage that counted Tokens), not stored; Examples and
	// Tokens count its held-out windows (pretrain) or examples (train-sft)
	// and the tokens scored.
	AccuracyBefore   *float64 `json:"accuracy_before,omitempty"`
	LossBefore       *float64 `json:"loss_before,omitempty"`
	Perplexity       *float64 `json:"perplexity,omitempty"`
	PerplexityBefore *float64 `json:"perplexity_before,omitempty"`
	Examples         int      `json:"examples,omitempty"`
	Tokens           int      `json:"tokens,omitempty"`
	// RewardBefore and RewardAfter are a policy's mean reward on the
	// held-out prompts (or states) before and after training;
	// RewardDeltaCI is the 95% bootstrap interval [low, high] of their
	// paired difference; Prompts counts the prompts.
	RewardBefore  *float64  `json:"reward_before,omitempty"`
	RewardAfter   *float64  `json:"reward_after,omitempty"`
	RewardDeltaCI []float64 `json:"reward_delta_ci,omitempty"`
	Prompts       int       `json:"prompts,omitempty"`
	// Epochs are the evaluations during training (a reward model's
	// held-out accuracy and loss at the end of every epoch).
	Epochs []HeldoutEpoch `json:"epochs,omitempty"`
}

// HeldoutEpoch is one evaluation during training.
type HeldoutEpoch struct {
	Step     int     `json:"step"`
	Epoch    float64 `json:"epoch"`
	Accuracy float64 `json:"accuracy"`
	Loss     float64 `json:"loss"`
}

// Heldout returns the held-out evaluations of a run's training stages by
// stage key: the stage-level heldout_* metrics of the run's units and the
// heldout_accuracy / heldout_loss values of their training steps.
func (s *Store) Heldout(ctx context.Context, runID string) (map[string]*Heldout, error) {
	out := map[string]*Heldout{}
	get := func(k string) *Heldout {
		if out[k] == nil {
			out[k] = &Heldout{}
		}
		return out[k]
	}
	rows, err := s.r.QueryContext(ctx, `SELECT m.system, m.name, m.value FROM metrics m
		WHERE m.episode_id IS NULL AND m.name LIKE 'heldout\_%' ESCAPE '\' AND `+inRun("m")+`
		ORDER BY m.system, m.name, m.id`, runID)
	if err != nil {
		return nil, fmt.Errorf("reading held-out evaluations of run %s: %w", runID, err)
	}
	defer rows.Close()
	ciLow, ciHigh := map[string]float64{}, map[string]float64{}
	for rows.Next() {
		var stage, name string
		var v float64
		if err := rows.Scan(&stage, &name, &v); err != nil {
			return nil, fmt.Errorf("reading held-out evaluations of run %s: %w", runID, err)
		}
		h, p := get(stage), &v
		switch name {
		case MetricHeldoutAccuracy:
			h.Accuracy = p
		case MetricHeldoutLoss:
			h.Loss = p
		case MetricHeldoutAccuracyBefore:
			h.AccuracyBefore = p
		case MetricHeldoutLossBefore:
			h.LossBefore = p
		case MetricHeldoutExamples:
			h.Examples = int(v)
		case MetricHeldoutTokens:
			h.Tokens = int(v)
		case MetricHeldoutPairs:
			h.Pairs = int(v)
		case MetricHeldoutRewardBefore:
			h.RewardBefore = p
		case MetricHeldoutRewardAfter:
			h.RewardAfter = p
		case MetricHeldoutPrompts:
			h.Prompts = int(v)
		case MetricHeldoutDeltaCILow:
			ciLow[stage] = v
		case MetricHeldoutDeltaCIHigh:
			ciHigh[stage] = v
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("reading held-out evaluations of run %s: %w", runID, err)
	}
	rows.Close()
	for stage, low := range ciLow {
		if high, ok := ciHigh[stage]; ok {
			get(stage).RewardDeltaCI = []float64{low, high}
		}
	}
	for _, h := range out {
		if h.Tokens > 0 { // a language model's loss per token
			h.Perplexity, h.PerplexityBefore = expOf(h.Loss), expOf(h.LossBefore)
		}
	}
	if err := s.heldoutEpochs(ctx, runID, get); err != nil {
		return nil, err
	}
	return out, nil
}

// heldoutEpochs adds the training steps that carry a held-out evaluation.
func (s *Store) heldoutEpochs(ctx context.Context, runID string, get func(string) *Heldout) error {
	rows, err := s.r.QueryContext(ctx, `SELECT ts.stage_key, ts.step, ts.epoch, ts.values_json FROM training_steps ts
		WHERE `+inRun("ts")+` AND json_extract(ts.values_json, '$.heldout_accuracy') IS NOT NULL
		ORDER BY ts.stage_key, ts.unit_fp, ts.step`, runID)
	if err != nil {
		return fmt.Errorf("reading held-out evaluations of run %s: %w", runID, err)
	}
	defer rows.Close()
	for rows.Next() {
		var stage, vals string
		var e HeldoutEpoch
		if err := rows.Scan(&stage, &e.Step, &e.Epoch, &vals); err != nil {
			return fmt.Errorf("reading held-out evaluations of run %s: %w", runID, err)
		}
		var v map[string]float64
		if err := json.Unmarshal([]byte(vals), &v); err != nil {
			return fmt.Errorf("decoding values of step %d of %s: %w", e.Step, stage, err)
		}
		e.Accuracy, e.Loss = v[MetricHeldoutAccuracy], v[MetricHeldoutLoss]
		h := get(stage)
		h.Epochs = append(h.Epochs, e)
	}
	return rows.Err()
}

// expOf is exp(*v), nil for nil.
func expOf(v *float64) *float64 {
	if v == nil {
		return nil
	}
	e := math.Exp(*v)
	return &e
}
