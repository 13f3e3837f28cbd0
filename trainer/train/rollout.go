package train

import (
	"context"
	"fmt"

	"mascot.dev/mascot/trainer/lora"
	"mascot.dev/mascot/trainer/qwen3"
	"mascot.dev/mascot/trainer/sample"
)

// Episode is one rollout: the whole token sequence and which tokens the
// policy is trained on.
type Episode struct {
	// IDs is the full sequence (prompt, generated turns, everything).
	IDs []int
	// Trainable marks, per token of IDs, those that get loss: the tokens
	// the policy generated (in director mode, the directive tokens only;
	// speaker and user turns stay false). Token 0 is never trainable.
	Trainable []bool
	// Completion is the text the reward function scores.
	Completion string
	// Reward, when set, is used instead of calling GRPOJob.Reward.
	Reward *float64
}

// RolloutFunc produces n episodes for one prompt. policy samples from the
// current policy (adapter enabled) with the job's sampling settings.
type RolloutFunc func(ctx context.Context, prompt string, n int, policy *Policy) ([]Episode, error)

// Policy is the current policy as a sampler, handed to RolloutFunc.
type Policy struct {
	// Model is the base with the current adapter applied on the fly.
	Model *qwen3.Model
	// Adapter is the current adapter as PEFT weights (what a rollout
	// endpoint hot-loads); nil outside training.
	Adapter *lora.Adapter
	// Params are the job's sampling settings (seeded per generation).
	Params sample.Params
	// Generation is the index of the generation batch being rolled out
	// and Slot the prompt's place in it: with the prompt they identify a
	// rollout's requests (their cache keys and seeds), the same in a run
	// that resumes from a checkpoint.
	Generation, Slot int
}

// Sample draws n completions of prompt with the policy's settings and
// returns their tokens (each ends with a stop token unless cut by
// MaxTokens).
func (p *Policy) Sample(ctx context.Context, prompt []int, n int) ([][]int, error) {
	rs, err := sample.GenerateN(ctx, p.Model, prompt, n, p.Params)
	if err != nil {
		return nil, fmt.Errorf("sampling from policy: %w", err)
	}
	out := make([][]int, n)
	for i, r := range rs {
		out[i] = r.Tokens
	}
	return out, nil
}

// defaultRollout is single-turn: the policy completes the encoded prompt.
// A prompt longer than maxPrompt tokens (0: no limit) keeps its last
// maxPrompt, as TRL's max_prompt_length truncation does (it cuts from the
// left), so that prompt and completion fit within max_length.
func defaultRollout(tok Tokenizer, maskTruncated bool, maxPrompt int) RolloutFunc {
	return func(ctx context.Context, prompt string, n int, policy *Policy) ([]Episode, error) {
		ptoks := tok.Encode(prompt)
		if len(ptoks) == 0 {
			return nil, fmt.Errorf("rolling out: prompt %q encodes to no tokens", prompt)
		}
		if maxPrompt > 0 && len(ptoks) > maxPrompt {
			ptoks = ptoks[len(ptoks)-maxPrompt:]
		}
		comps, err := policy.Sample(ctx, ptoks, n)
		if err != nil {
			return nil, err
		}
		eps := make([]Episode, n)
		for i, c := range comps {
			ids := append(append([]int(nil), ptoks...), c...)
			tr := make([]bool, len(ids))
			mask := completionMask(c, tok.EOS(), maskTruncated)
			text := c
			for j, m := range mask {
				tr[len(ptoks)+j] = m > 0
			}
			if len(text) > 0 && text[len(text)-1] == tok.EOS() {
				text = text[:len(text)-1]
			}
			eps[i] = Episode{IDs: ids, Trainable: tr, Completion: tok.Decode(text)}
		}
		return eps, nil
	}
}

// keepLast cuts an episode longer than maxLen (0: no limit) to its last
// maxLen tokens, the way the default rollout cuts prompts: whatever a
// rollout function returns (director trajectories included) is trained
// within max_length. The first kept token has no predecessor, so it is
// not trainable. ok reports whether the episode was cut.
func keepLast(ep Episode, maxLen int) (Episode, bool) {
	if maxLen <= 0 || len(ep.IDs) <= maxLen {
		return ep, false
	}
	cut := len(ep.IDs) - maxLen
	ep.IDs = ep.IDs[cut:]
	ep.Trainable = append([]bool(nil), ep.Trainable[cut:]...)
	ep.Trainable[0] = false
	return ep, true
}
