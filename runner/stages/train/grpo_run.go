package train

import (
	"context"
	"fmt"

	"mascot.dev/mascot/runner"
	"mascot.dev/mascot/trainer/lora"
	"mascot.dev/mascot/trainer/loss"
	"mascot.dev/mascot/trainer/qwen3"
	"mascot.dev/mascot/trainer/reward"
	"mascot.dev/mascot/trainer/tokenizer"
	"mascot.dev/mascot/trainer/train"
)

// grpoRun is what both GRPO policies (Speaker prompts, Director
// trajectories) set up before training: the base model and its
// tokenizer, the reward, the stage folder and the trainer options.
type grpoRun struct {
	base    *qwen3.Model
	tk      *tokenizer.Tokenizer
	reward  reward.Func
	dir     string
	opts    train.Options
	release func()
}

// setup loads the base and the rewards and makes the trainer options of
// unit u (n training prompts or states), holding the device until
// release.
func (s *grpoStage) setup(ctx context.Context, u runner.Unit, b baseModel, rewards []rewardSpec, n int) (*grpoRun, error) {
	base, tk, err := loadBase(b.Dir)
	if err != nil {
		return nil, err
	}
	rf, err := buildReward(rewards)
	if err != nil {
		return nil, err
	}
	dir, err := stageDir(s.env, s.key)
	if err != nil {
		return nil, err
	}
	opts := s.cfg.options(n, s.env.Seed(s.key), dir, checkpointDir(s.env, u), &s.cfg.LoRA)
	release, err := s.cfg.useDevice(&opts)
	if err != nil {
		return nil, err
	}
	b.describe(&opts)
	opts.OnStep = reportSteps(ctx, s.env, s.key, "train-grpo", u, opts.Steps, 0)
	return &grpoRun{base: base, tk: tk, reward: rf, dir: dir, opts: opts, release: release}, nil
}

// job is the GRPO job over prompts with the stage's loss settings; the
// caller adds Reward or Rollout.
func (s *grpoStage) job(r *grpoRun, prompts []string) train.GRPOJob {
	return train.GRPOJob{Options: r.opts, Base: r.base, Tokenizer: tok{r.tk}, Prompts: prompts,
		GroupSize: max(2, s.cfg.NumGenerations), MaxCompletionTokens: s.cfg.MaxCompletionLength,
		Temperature: s.cfg.Temperature,
		Loss: loss.GRPOConfig{Beta: s.cfg.Beta, Epsilon: s.cfg.Epsilon, EpsilonHigh: s.cfg.EpsilonHigh,
			LossType: s.cfg.LossType, Sequence: s.cfg.ImportanceSamplingLevel == "sequence"},
		ScaleRewards: s.cfg.ScaleRewards, NumIterations: max(1, s.cfg.NumIterations)}
}

// tuned returns the base with the trained adapter, for the held-out
// evaluation after training.
func (r *grpoRun) tuned(res train.Result) (*qwen3.Model, *lora.Adapter, error) {
	ad, err := lora.Load(res.Dir)
	if err != nil {
		return nil, nil, fmt.Errorf("loading trained adapter: %w", err)
	}
	m, err := r.base.WithAdapters(ad)
	return m, ad, err
}
