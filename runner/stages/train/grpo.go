package train

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"

	"mascot.dev/mascot/results"
	"mascot.dev/mascot/runner"
	"mascot.dev/mascot/schema"
	"mascot.dev/mascot/trainer/qwen3"
	"mascot.dev/mascot/trainer/reward"
	"mascot.dev/mascot/trainer/sample"
	"mascot.dev/mascot/trainer/train"
)

// GRPOConfig is #TrainGRPO.
type GRPOConfig struct {
	ModelRef
	Optim
	Policy                  string   `json:"policy"`
	Prompts                 string   `json:"prompts"`
	Rewards                 []string `json:"rewards"`
	NumGenerations          int      `json:"num_generations"`
	Beta                    float64  `json:"beta"`
	Epsilon                 float64  `json:"epsilon"`
	EpsilonHigh             float64  `json:"epsilon_high,omitempty"`
	LossType                string   `json:"loss_type"`
	ScaleRewards            string   `json:"scale_rewards"`
	ImportanceSamplingLevel string   `json:"importance_sampling_level"`
	NumIterations           int      `json:"num_iterations"`
	Temperature             float64  `json:"temperature"`
	MaxCompletionLength     int      `json:"max_completion_length"`
	Rollouts                string   `json:"rollouts"`
	RolloutEndpoint         string   `json:"rollout_endpoint,omitempty"`
	// Horizon is the rounds a Director rollout plays (0: to the end of
	// the episode's round budget).
	Horizon         int     `json:"horizon,omitempty"`
	HeldoutFraction float64 `json:"heldout_fraction"`
	LoRA            LoRA    `json:"lora"`
}

type grpoStage struct {
	env *runner.Env
	key string
	cfg GRPOConfig
}

func newGRPO(env *runner.Env, st schema.Stage) (runner.Stage, error) {
	s := &grpoStage{env: env, key: st.Key}
	if err := st.Decode(&s.cfg); err != nil {
		return nil, err
	}
	if s.cfg.Rollouts == "endpoint" && s.cfg.Policy != "director" {
		return nil, fmt.Errorf("stage %s: rollouts \"endpoint\" is supported for the director policy only; use \"trainer\"", st.Key)
	}
	return s, nil
}

type grpoPayload struct {
	train, heldout []string
	base           baseModel
	rewards        []rewardSpec
}

func (s *grpoStage) Units(ctx context.Context) ([]runner.Unit, error) {
	units, err := upstreamUnits(s.env, s.cfg.Prompts)
	if err != nil {
		return nil, err
	}
	base, err := resolveBase(s.env, s.cfg.ModelRef)
	if err != nil {
		return nil, err
	}
	rw, err := resolveRewards(s.env, s.cfg.Rewards)
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(rw))
	for i, r := range rw {
		ids[i] = r.ID
	}
	if s.cfg.Policy == "director" {
		return s.directorUnits(ctx, units, base, rw, ids)
	}
	prompts, err := readPrompts(ctx, s.env, s.env.Exp.Stages[s.cfg.Prompts].Kind, units)
	if err != nil {
		return nil, err
	}
	if len(prompts) == 0 {
		return nil, fmt.Errorf("stage %s: stage %s holds no prompts", s.key, s.cfg.Prompts)
	}
	tr, ho := splitHeldout(prompts, s.cfg.HeldoutFraction, uint64(s.env.Seed(s.key)))
	return []runner.Unit{{Key: "train", Inputs: map[string]any{"prompt_units": units, "base": base.ID, "rewards": ids},
		Payload: grpoPayload{train: tr, heldout: ho, base: base, rewards: rw}}}, nil
}

// readPrompts returns the distinct rendered prompts of the upstream units:
// candidates' prompts, or the episodes' stored Director prompts.
func readPrompts(ctx context.Context, env *runner.Env, kind string, units []string) ([]string, error) {
	read := env.Store.CandidatePrompts
	if kind == "episodes" {
		read = env.Store.DirectorPrompts
	}
	prompts, err := read(ctx, units)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, p := range prompts {
		r, err := renderPrompt(p)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// splitHeldout shuffles prompts with seed and holds out frac of them (at
// least one when frac > 0 and there are two or more prompts).
func splitHeldout(prompts []string, frac float64, seed uint64) (train, heldout []string) {
	p := append([]string(nil), prompts...)
	sort.Strings(p)
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	r.Shuffle(len(p), func(i, j int) { p[i], p[j] = p[j], p[i] })
	n := int(math.Round(frac * float64(len(p))))
	if frac > 0 && n == 0 && len(p) >= 2 {
		n = 1
	}
	n = min(n, len(p)-1)
	return p[n:], p[:n]
}

func (s *grpoStage) Run(ctx context.Context, u runner.Unit) (runner.Commit, error) {
	if d, ok := u.Payload.(directorPayload); ok {
		return s.runDirector(ctx, u, d)
	}
	p := u.Payload.(grpoPayload)
	r, err := s.setup(ctx, u, p.base, p.rewards, len(p.train))
	if err != nil {
		return nil, err
	}
	defer r.release()
	// The held-out prompts are cut as the trainer cuts training prompts
	// (their last max_length − max_completion_length tokens).
	ev := evaluator{tk: tok{r.tk}, reward: r.reward, n: max(2, s.cfg.NumGenerations), seed: r.opts.Seed,
		maxPrompt: max(0, r.opts.MaxLength-s.cfg.MaxCompletionLength),
		params: sample.Params{Temperature: float32(s.cfg.Temperature), MaxTokens: s.cfg.MaxCompletionLength,
			StopTokens: []int{tok{r.tk}.EOS()}}}
	var before []float64
	if len(p.heldout) > 0 {
		if before, err = ev.perPrompt(ctx, r.base, p.heldout); err != nil {
			return nil, err
		}
	}
	job := s.job(r, p.train)
	job.Reward = r.reward
	res, err := train.TrainGRPO(ctx, job)
	if err != nil {
		return nil, err
	}
	if err := doneTraining(r.opts.CheckpointDir); err != nil {
		return nil, err
	}
	var metrics []results.Metric
	if len(p.heldout) > 0 {
		tuned, _, err := r.tuned(res)
		if err != nil {
			return nil, err
		}
		after, err := ev.perPrompt(ctx, tuned, p.heldout)
		if err != nil {
			return nil, err
		}
		metrics = newPairedDelta(p.heldout, before, after).metrics(s.key)
	}
	meta := map[string]any{"base": p.base.ID, "base_dir": p.base.Dir, "policy": s.cfg.Policy,
		"train_prompts": len(p.train), "heldout_prompts": len(p.heldout)}
	a := artifact("adapter", res, meta)
	return commit(a, stepRows(s.key, res.History, 0), metrics), nil
}

// evaluator measures the reward of a model's sampled completions.
type evaluator struct {
	tk        tok
	reward    reward.Func
	n         int
	seed      uint64
	maxPrompt int // prompts keep their last maxPrompt tokens, as in training (0: whole)
	params    sample.Params
}

// perPrompt samples n completions per prompt (same seeds for every model)
// and returns each prompt's mean reward; abstentions are skipped, and a
// prompt whose every completion abstained is NaN.
func (e evaluator) perPrompt(ctx context.Context, m *qwen3.Model, prompts []string) ([]float64, error) {
	out := make([]float64, len(prompts))
	for i, pr := range prompts {
		pp := e.params
		pp.Seed = e.seed ^ uint64(i+1)*0x9e3779b97f4a7c15
		ids := e.tk.Encode(pr)
		if e.maxPrompt > 0 && len(ids) > e.maxPrompt {
			ids = ids[len(ids)-e.maxPrompt:]
		}
		rs, err := sample.GenerateN(ctx, m, ids, e.n, pp)
		if err != nil {
			return nil, fmt.Errorf("evaluating held-out prompts: %w", err)
		}
		var sum float64
		var k int
		for _, r := range rs {
			toks := r.Tokens
			if len(toks) > 0 && toks[len(toks)-1] == e.tk.EOS() {
				toks = toks[:len(toks)-1]
			}
			v, err := e.reward(ctx, pr, e.tk.Decode(toks))
			if err != nil {
				continue
			}
			sum += v
			k++
		}
		out[i] = math.NaN()
		if k > 0 {
			out[i] = sum / float64(k)
		}
	}
	return out, nil
}
