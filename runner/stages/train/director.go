package train

import (
	"context"
	"fmt"
	"math"

	"mascot.dev/mascot/results"
	"mascot.dev/mascot/runner"
	"mascot.dev/mascot/runner/stages/episodes"
	"mascot.dev/mascot/schema"
	"mascot.dev/mascot/trainer/train"
)

// Trajectory GRPO for the Director (docs/design/director-grpo.md): the
// training states are conversation prefixes of the episodes stage the
// stage reads; each GRPO group is G directives drawn from the policy at
// one state, each played on through the episodes stage's dialogue engine
// for the horizon and rewarded on the whole transcript.

// directorPayload is a director unit's work.
type directorPayload struct {
	train, heldout []dstate
	set            *episodes.Setting
	base           baseModel
	rewards        []rewardSpec
}

// directorUnits makes the one unit of a director stage: its states read
// from the episodes stage's units, split by sample.
func (s *grpoStage) directorUnits(ctx context.Context, units []string, base baseModel, rw []rewardSpec, ids []string) ([]runner.Unit, error) {
	set, err := episodes.OpenSetting(s.env, s.cfg.Prompts)
	if err != nil {
		return nil, fmt.Errorf("stage %s: the director policy rolls out from an episodes stage: %w", s.key, err)
	}
	states, err := readStates(ctx, s.env, units, set.Turns())
	if err != nil {
		return nil, err
	}
	if len(states) == 0 {
		return nil, fmt.Errorf("stage %s: stage %s holds no conversation to roll out from", s.key, s.cfg.Prompts)
	}
	tr, ho := splitStates(states, s.cfg.HeldoutFraction, uint64(s.env.Seed(s.key)))
	if len(tr) == 0 {
		return nil, fmt.Errorf("stage %s: every state of stage %s is held out", s.key, s.cfg.Prompts)
	}
	in := map[string]any{"prompt_units": units, "base": base.ID, "rewards": ids,
		"rollouts": "trajectory/1", "horizon": s.cfg.Horizon, "setting": set.Identity()}
	return []runner.Unit{{Key: "train", Inputs: in,
		Payload: directorPayload{train: tr, heldout: ho, set: set, base: base, rewards: rw}}}, nil
}

// runDirector trains the Director on trajectories and measures the
// held-out reward before and after, on whole trajectories too.
func (s *grpoStage) runDirector(ctx context.Context, u runner.Unit, p directorPayload) (runner.Commit, error) {
	r, err := s.setup(ctx, u, p.base, p.rewards, len(p.train))
	if err != nil {
		return nil, err
	}
	defer r.release()
	if err := p.set.LoadAdapters(ctx); err != nil {
		return nil, err
	}
	ro, err := s.newRollouts(u, p, tok{r.tk}, r.base.Config.VocabSize, r.reward, r.dir)
	if err != nil {
		return nil, err
	}
	defer ro.close(ctx)
	var metrics []results.Metric
	var before, after []float64 // per held-out state, in p.heldout's order
	if len(p.heldout) > 0 {
		if before, err = ro.heldout(ctx, "before", r.base, nil); err != nil {
			return nil, err
		}
	}
	keys := make([]string, len(p.train))
	for i, st := range p.train {
		keys[i] = st.Key
	}
	job := s.job(r, keys)
	job.Rollout = ro.rollout
	res, err := train.TrainGRPO(ctx, job)
	if err != nil {
		return nil, err
	}
	if err := doneTraining(r.opts.CheckpointDir); err != nil {
		return nil, err
	}
	if len(p.heldout) > 0 {
		tuned, ad, err := r.tuned(res)
		if err != nil {
			return nil, err
		}
		if after, err = ro.heldout(ctx, "after", tuned, ad); err != nil {
			return nil, err
		}
		// Means over the states rewarded both times, and the 95% bootstrap
		// interval of the paired difference.
		held := make([]string, len(p.heldout))
		for i, st := range p.heldout {
			held[i] = st.Key
		}
		metrics = newPairedDelta(held, before, after).metrics(s.key)
	}
	meta := map[string]any{"base": p.base.ID, "base_dir": p.base.Dir, "policy": s.cfg.Policy,
		"train_states": len(p.train), "heldout_states": len(p.heldout), "horizon": s.cfg.Horizon,
		"heldout_rewards_before": jsonFloats(before), "heldout_rewards_after": jsonFloats(after)}
	a := artifact("adapter", res, meta)
	return commit(a, stepRows(s.key, res.History, 0), metrics), nil
}

// meanOf is the mean of the values that are not NaN (NaN when none is).
func meanOf(xs []float64) float64 {
	var sum float64
	var n int
	for _, x := range xs {
		if !math.IsNaN(x) {
			sum += x
			n++
		}
	}
	if n == 0 {
		return math.NaN()
	}
	return sum / float64(n)
}

// jsonFloats writes NaN (a state whose every reward abstained) as null,
// which JSON can hold.
func jsonFloats(xs []float64) []any {
	out := make([]any, len(xs))
	for i, x := range xs {
		if !math.IsNaN(x) {
			out[i] = x
		}
	}
	return out
}

// grpoSettings is what the plan shows of a GRPO stage: for the Director,
// how far its rollouts play and where its policy samples.
func grpoSettings(st schema.Stage) string {
	var c GRPOConfig
	if st.Decode(&c) != nil || c.Policy != "director" {
		return ""
	}
	h := "to the end of the round budget"
	switch {
	case c.Horizon == 1:
		h = "1 round"
	case c.Horizon > 1:
		h = fmt.Sprintf("%d rounds", c.Horizon)
	}
	return fmt.Sprintf("horizon: %s; rollouts: %s", h, c.Rollouts)
}
