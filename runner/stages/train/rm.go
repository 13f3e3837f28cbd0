package train

import (
	"context"

	"mascot.dev/mascot/runner"
	"mascot.dev/mascot/schema"
	"mascot.dev/mascot/trainer/train"
)

// RMConfig is #TrainRewardModel.
type RMConfig struct {
	ModelRef
	Optim
	Pairs                    string  `json:"pairs"`
	MarginInLoss             bool    `json:"margin_in_loss"`
	CenterRewardsCoefficient float64 `json:"center_rewards_coefficient"`
	LoRA                     *LoRA   `json:"lora,omitempty"`
	HeldoutFraction          float64 `json:"heldout_fraction"`
	MaxPromptLength          int     `json:"max_prompt_length"`
}

type rmStage struct {
	env *runner.Env
	key string
	cfg RMConfig
}

func newRM(env *runner.Env, st schema.Stage) (runner.Stage, error) {
	s := &rmStage{env: env, key: st.Key}
	return s, st.Decode(&s.cfg)
}

func (s *rmStage) Units(ctx context.Context) ([]runner.Unit, error) {
	u, err := pairUnit(s.env, s.cfg.Pairs, s.cfg.ModelRef, nil)
	return []runner.Unit{u}, err
}

func (s *rmStage) Run(ctx context.Context, u runner.Unit) (runner.Commit, error) {
	p := u.Payload.(pairPayload)
	job, err := loadPairJob(ctx, s.env, s.key, s.cfg.Pairs, p)
	if err != nil {
		return nil, err
	}
	if !s.cfg.MarginInLoss {
		for i := range job.pairs {
			job.pairs[i].Margin = 0
		}
	}
	// Whole queries are held out, with the stage's seed.
	pairs, heldout, queries := splitPairs(job.rows, job.pairs, s.cfg.HeldoutFraction, uint64(s.env.Seed(s.key)))
	opts := s.cfg.options(len(pairs), s.env.Seed(s.key), job.dir, checkpointDir(s.env, u), s.cfg.LoRA)
	release, err := s.cfg.useDevice(&opts)
	if err != nil {
		return nil, err
	}
	defer release()
	p.base.describe(&opts)
	perEpoch := len(pairs) / max(1, opts.BatchSize*opts.GradAccum)
	opts.OnStep = reportSteps(ctx, s.env, s.key, "train-reward-model", u, opts.Steps, perEpoch)
	res, err := train.TrainRewardModel(ctx, train.RMJob{Options: opts, BaseDir: job.baseDir, Tokenizer: tok{job.tok}, Pairs: pairs,
		EvalPairs: heldout, EvalEvery: max(1, perEpoch), MaxPromptLength: s.cfg.MaxPromptLength,
		CenterRewardsCoefficient: s.cfg.CenterRewardsCoefficient})
	if err != nil {
		return nil, err
	}
	if err := doneTraining(opts.CheckpointDir); err != nil {
		return nil, err
	}
	if err := copyTokenizer(p.base.Dir, res); err != nil {
		return nil, err
	}
	s.env.Count(s.key, "num_train_pairs", int64(len(pairs)))
	s.env.Count(s.key, "num_heldout_pairs", int64(len(heldout)))
	meta := map[string]any{"base": p.base.ID, "train_pairs": len(pairs), "heldout_pairs": len(heldout), "heldout_queries": queries}
	if s.cfg.MaxPromptLength > 0 {
		meta[metaMaxPrompt] = s.cfg.MaxPromptLength // the scorer cuts prompts the same way
	}
	a := artifact("reward-model", res, meta)
	return commit(a, stepRows(s.key, res.History, perEpoch), rmHeldoutMetrics(s.key, res.Eval)), nil
}
