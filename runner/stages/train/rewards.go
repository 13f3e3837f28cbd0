package train

import (
	"context"
	"encoding/json"
	"fmt"

	"mascot.dev/mascot/runner"
	"mascot.dev/mascot/trainer/qwen3"
	"mascot.dev/mascot/trainer/reward"
	"mascot.dev/mascot/trainer/serve"
	"mascot.dev/mascot/trainer/train"
)

// rewardSpec is one resolved reward term with its identity for the
// unit's inputs.
type rewardSpec struct {
	name string
	r    struct {
		Kind    string
		Weight  float64
		Options json.RawMessage
	}
	dir       string // reward-model directory
	maxPrompt int    // the reward model's max_prompt_length (0: whole prompts)
	ID        string
}

// metaMaxPrompt is the reward-model artifact's meta key for the
// max_prompt_length it was trained with, which its scorer applies too.
const metaMaxPrompt = "max_prompt_length"

// resolveRewards looks up the experiment's rewards by name; reward-model
// terms find their stage's "reward-model" artifact.
func resolveRewards(env *runner.Env, names []string) ([]rewardSpec, error) {
	var out []rewardSpec
	for _, n := range names {
		r, ok := env.Exp.Rewards[n]
		if !ok {
			return nil, fmt.Errorf("unknown reward %q", n)
		}
		s := rewardSpec{name: n}
		s.r.Kind, s.r.Weight, s.r.Options = r.Kind, r.Weight, r.Options
		s.ID = fmt.Sprintf("%s:%s:%g:%s", n, r.Kind, r.Weight, string(r.Options))
		switch r.Kind {
		case "reward-model":
			o, err := env.Output(r.Stage)
			if err != nil {
				return nil, err
			}
			a, ok := artifactOf(o, "reward-model")
			if !ok {
				return nil, fmt.Errorf("reward %s: stage %s recorded no reward-model artifact", n, r.Stage)
			}
			s.dir, s.ID = a.Path, s.ID+":"+a.SHA256
			var meta map[string]any
			if len(a.Meta) > 0 && json.Unmarshal(a.Meta, &meta) == nil {
				if v, ok := meta[metaMaxPrompt].(float64); ok {
					s.maxPrompt = int(v)
				}
			}
		case "format", "conciseness":
		default:
			return nil, fmt.Errorf("reward %s: kind %q is not supported by train-grpo", n, r.Kind)
		}
		out = append(out, s)
	}
	return out, nil
}

// buildReward builds the weighted reward of specs.
func buildReward(specs []rewardSpec) (reward.Func, error) {
	var parts []reward.Component
	for _, s := range specs {
		var f reward.Func
		switch s.r.Kind {
		case "format":
			f = reward.Format(reward.FormatOptions{})
		case "conciseness":
			var o struct {
				Target int `json:"target_words"`
				Min    int `json:"min_words"`
			}
			if len(s.r.Options) > 0 {
				_ = json.Unmarshal(s.r.Options, &o)
			}
			if o.Target <= 0 {
				o.Target = 40
			}
			var err error
			if f, err = reward.ConcisenessWithin(o.Min, o.Target); err != nil {
				return nil, fmt.Errorf("reward %s: %w", s.name, err)
			}
		case "reward-model":
			sc, err := loadScorer(s.dir, s.maxPrompt)
			if err != nil {
				return nil, fmt.Errorf("reward %s: %w", s.name, err)
			}
			f = reward.ModelScore(sc)
		}
		parts = append(parts, reward.Component{Name: s.name, Weight: s.r.Weight, Func: f})
	}
	return reward.Weighted(parts...), nil
}

// loadScorer loads a merged sequence-classification checkpoint and scores
// a completion with its score head on the tokens train.EncodeScored gives
// (prompts cut to their last maxPrompt tokens when maxPrompt > 0), the
// tokenisation the reward model was trained on.
func loadScorer(dir string, maxPrompt int) (func(ctx context.Context, prompt, completion string) (float64, error), error) {
	m, err := qwen3.Load(dir)
	if err != nil {
		return nil, fmt.Errorf("loading reward model: %w", err)
	}
	if !m.Config.IsSequenceClassification() {
		return nil, fmt.Errorf("loading reward model: %s is not a sequence-classification checkpoint", dir)
	}
	tk, err := serve.LoadTokenizer(dir)
	if err != nil {
		return nil, err
	}
	sc := m.NewScorer() // a group's completions share their prompt's prefill
	return func(_ context.Context, prompt, completion string) (float64, error) {
		// The tokens the reward model was trained on (train.EncodeScored).
		ids, _ := train.EncodeScored(tok{tk}, prompt, completion, maxPrompt)
		s, err := sc.Score(ids)
		if err != nil {
			return 0, err
		}
		return float64(s[0]), nil
	}, nil
}
