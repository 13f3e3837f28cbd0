package train

import (
	"context"

	"mascot.dev/mascot/runner"
	"mascot.dev/mascot/schema"
	"mascot.dev/mascot/trainer/train"
)

// DPOConfig is #TrainDPO.
type DPOConfig struct {
	ModelRef
	Optim
	Pairs string  `json:"pairs"`
	Beta  float64 `json:"beta"`
	LoRA  LoRA    `json:"lora"`
	// HeldoutFraction of the pairs' queries are held out.
	HeldoutFraction float64 `json:"heldout_fraction"`
	MaxPromptLength int     `json:"max_prompt_length"`
}

type dpoStage struct {
	env *runner.Env
	key string
	cfg DPOConfig
}

func newDPO(env *runner.Env, st schema.Stage) (runner.Stage, error) {
	s := &dpoStage{env: env, key: st.Key}
	return s, st.Decode(&s.cfg)
}

func (s *dpoStage) Units(ctx context.Context) ([]runner.Unit, error) {
	u, err := pairUnit(s.env, s.cfg.Pairs, s.cfg.ModelRef, nil)
	return []runner.Unit{u}, err
}

func (s *dpoStage) Run(ctx context.Context, u runner.Unit) (runner.Commit, error) {
	p := u.Payload.(pairPayload)
	job, err := loadPairJob(ctx, s.env, s.key, s.cfg.Pairs, p)
	if err != nil {
		return nil, err
	}
	// Whole queries are held out, with the stage's seed, as the reward
	// models hold them out.
	pairs, heldout, queries := splitPairs(job.rows, job.pairs, s.cfg.HeldoutFraction, uint64(s.env.Seed(s.key)))
	opts := s.cfg.options(len(pairs), s.env.Seed(s.key), job.dir, checkpointDir(s.env, u), &s.cfg.LoRA)
	release, err := s.cfg.useDevice(&opts)
	if err != nil {
		return nil, err
	}
	defer release()
	p.base.describe(&opts)
	opts.OnStep = reportSteps(ctx, s.env, s.key, "train-dpo", u, opts.Steps, 0)
	res, err := train.TrainDPO(ctx, train.DPOJob{Options: opts, BaseDir: job.baseDir, Tokenizer: tok{job.tok}, Pairs: pairs, Beta: s.cfg.Beta,
		EvalPairs: heldout, MaxPromptLength: s.cfg.MaxPromptLength})
	if err != nil {
		return nil, err
	}
	if err := doneTraining(opts.CheckpointDir); err != nil {
		return nil, err
	}
	s.env.Count(s.key, "num_train_pairs", int64(len(pairs)))
	s.env.Count(s.key, "num_heldout_pairs", int64(len(heldout)))
	a := artifact("adapter", res, map[string]any{"base": p.base.ID, "base_dir": p.base.Dir,
		"train_pairs": len(pairs), "heldout_pairs": len(heldout), "heldout_queries": queries})
	return commit(a, stepRows(s.key, res.History, 0), dpoHeldoutMetrics(s.key, res.Eval)), nil
}
