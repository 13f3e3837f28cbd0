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
	pairs := job.pairs
	opts := s.cfg.options(len(pairs), s.env.Seed(s.key), job.dir, checkpointDir(s.env, u), &s.cfg.LoRA)
	release, err := s.cfg.useDevice(&opts)
	if err != nil {
		return nil, err
	}
	defer release()
	p.base.describe(&opts)
	opts.OnStep = reportSteps(ctx, s.env, s.key, "train-dpo", u, opts.Steps, 0)
	res, err := train.TrainDPO(ctx, train.DPOJob{Options: opts, BaseDir: job.baseDir, Tokenizer: tok{job.tok}, Pairs: pairs, Beta: s.cfg.Beta})
	if err != nil {
		return nil, err
	}
	if err := doneTraining(opts.CheckpointDir); err != nil {
		return nil, err
	}
	a := artifact("adapter", res, map[string]any{"base": p.base.ID, "base_dir": p.base.Dir})
	return commit(a, stepRows(s.key, res.History, 0), nil), nil
}
