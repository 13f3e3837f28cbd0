package train

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"

	"mascot.dev/mascot/llm"
	"mascot.dev/mascot/results/jsonl"
	"mascot.dev/mascot/runner"
	"mascot.dev/mascot/runner/dialogue"
	"mascot.dev/mascot/runner/stages/episodes"
	"mascot.dev/mascot/runner/stages/stagekit"
	"mascot.dev/mascot/trainer/lora"
	"mascot.dev/mascot/trainer/qwen3"
	"mascot.dev/mascot/trainer/reward"
	"mascot.dev/mascot/trainer/sample"
	"mascot.dev/mascot/trainer/train"
)

// rollouts plays the Director's trajectories of one unit: GRPO groups
// during training and the held-out states before and after.
type rollouts struct {
	env     *runner.Env
	key, fp string // the stage (counters) and unit fingerprint (request keys)
	seed    int64  // the stage seed
	cfg     GRPOConfig
	set     *episodes.Setting
	states  map[string]dstate
	held    []dstate
	tok     tok
	gram    *grammar
	reward  reward.Func

	// endpoint mode: the Director's endpoint, where each generation's
	// adapter is written and the alias it is served under.
	endpoint string
	adDir    string
	alias    string
}

func (s *grpoStage) newRollouts(u runner.Unit, p directorPayload, tk tok, vocabSize int, rf reward.Func, dir string) (*rollouts, error) {
	r := &rollouts{env: s.env, key: s.key, fp: u.Fingerprint, seed: s.env.Seed(s.key), cfg: s.cfg, set: p.set,
		states: map[string]dstate{}, held: p.heldout, tok: tk, gram: newGrammar(tk, vocabSize), reward: rf}
	// A budget that cannot hold the shortest directive is a config error,
	// whichever samples it (the built-in engine refuses it too).
	if _, err := r.gram.processor(p.set.DirectiveSchema(), s.cfg.MaxCompletionLength); err != nil {
		return nil, fmt.Errorf("stage %s: %w", s.key, err)
	}
	for _, st := range p.train {
		r.states[st.Key] = st
	}
	if s.cfg.Rollouts == "endpoint" {
		r.endpoint = s.cfg.RolloutEndpoint
		if r.endpoint == "" {
			r.endpoint = p.set.Endpoint(dialogue.RoleDirector)
		}
		if s.env.LLM == nil {
			return nil, fmt.Errorf("stage %s: rollouts \"endpoint\" need endpoint %s, but the run has no LLM endpoints", s.key, r.endpoint)
		}
		r.adDir = filepath.Join(dir, "rollout-adapters")
	}
	return r, nil
}

// rollout is the GRPO job's RolloutFunc: n trajectories from state key,
// with request keys of this generation and slot (a resumed run asks the
// same ones, and replays them from the cache).
func (r *rollouts) rollout(ctx context.Context, key string, n int, pol *train.Policy) ([]train.Episode, error) {
	st, ok := r.states[key]
	if !ok {
		return nil, fmt.Errorf("no training state %q", key)
	}
	chat, err := r.chatter(ctx, pol, fmt.Sprintf("g%d", pol.Generation))
	if err != nil {
		return nil, err
	}
	unit := fmt.Sprintf("%s/g%d/p%d/%s", r.fp, pol.Generation, pol.Slot, st.Key)
	ro, rewards, err := r.play(ctx, chat, st, n, unit, unit, "rollout")
	if err != nil {
		return nil, err
	}
	eps := make([]train.Episode, n)
	for i, x := range ro.Rollouts {
		if eps[i], err = r.episode(chat, ro.Prompt, x, rewards[i]); err != nil {
			return nil, err
		}
	}
	return eps, nil
}

// heldout plays num_generations trajectories from every held-out state
// with model (adapter, its adapter, for endpoint rollouts; nil is the
// base) and returns each state's mean reward. Before and after share
// their seeds (seed key), so the paired difference holds the policy's
// change, not the draws'.
func (r *rollouts) heldout(ctx context.Context, phase string, model *qwen3.Model, adapter *lora.Adapter) ([]float64, error) {
	pol := &train.Policy{Model: model, Adapter: adapter, Params: sample.Params{StopTokens: []int{r.tok.EOS()}}}
	chat, err := r.chatter(ctx, pol, phase)
	if err != nil {
		return nil, err
	}
	out := make([]float64, len(r.held))
	for i, st := range r.held {
		unit := fmt.Sprintf("%s/heldout-%s/%s", r.fp, phase, st.Key)
		_, rewards, err := r.play(ctx, chat, st, max(2, r.cfg.NumGenerations), unit, r.fp+"/heldout/"+st.Key, "heldout")
		if err != nil {
			return nil, fmt.Errorf("evaluating held-out state %s %s training: %w", st.Key, phase, err)
		}
		out[i] = meanOf(rewards)
	}
	return out, nil
}

// play rolls n trajectories out of st for the horizon and rewards each
// on its whole transcript (rewardInput). An abstaining reward is NaN.
func (r *rollouts) play(ctx context.Context, chat *policyChat, st dstate, n int, unit, seedKey, phase string) (
	dialogue.Rollouts, []float64, error) {
	smp, ok := r.set.Sample(st.Sample)
	if !ok {
		return dialogue.Rollouts{}, nil, fmt.Errorf("sample %s of stage %s is not in its dataset", st.Sample, r.cfg.Prompts)
	}
	cfg := r.set.Config(unit, smp)
	cfg.Seed, cfg.UnitKey, cfg.SeedKey = r.seed, unit, seedKey
	cfg.SupportsN = r.endpoint == "" || r.env.Exp.Endpoints[r.endpoint].SupportsN
	ro, err := dialogue.RunRollouts(ctx, chat, cfg, smp, dialogue.Prefix{Turns: st.Turns, Round: st.Round}, n, r.horizonOf(st))
	stagekit.CountDialogue(ctx, r.env, r.key, ro.Counters)
	switch {
	case err != nil:
		return ro, nil, err
	case ro.Skipped || len(ro.Rollouts) != n:
		return ro, nil, fmt.Errorf("state %s gave %d rollouts, want %d (skipped: %v)", st.Key, len(ro.Rollouts), n, ro.Skipped)
	}
	rewards := make([]float64, n)
	var speaker, user int64
	for i, x := range ro.Rollouts {
		for _, t := range x.Episode.Turns[len(st.Turns):] {
			if t.TurnType == dialogue.TurnUser {
				user++
			} else {
				speaker++
			}
		}
		prompt, text, err := rewardInput(x.Episode.Turns)
		if err != nil {
			return ro, nil, err
		}
		v, err := r.reward(ctx, prompt, text)
		switch {
		case errors.Is(err, reward.ErrAbstain):
			v = math.NaN()
		case err != nil:
			return ro, nil, fmt.Errorf("rewarding a trajectory of state %s: %w", st.Key, err)
		}
		rewards[i] = v
	}
	r.env.CountIn(ctx, r.key, phase+"_trajectories", int64(n))
	r.env.CountIn(ctx, r.key, phase+"_speaker_turns", speaker)
	r.env.CountIn(ctx, r.key, phase+"_user_turns", user)
	return ro, rewards, nil
}

// rewardInput is what the reward scores of a trajectory: the prompt and
// the text the group reward model's training pairs hold for a
// conversation with these turns (readPairs' prompt of a block, which has
// none, and stagekit.Transcript, the pairs stage's block).
func rewardInput(turns []jsonl.Turn) (prompt, text string, err error) {
	if prompt, err = renderPrompt(""); err != nil {
		return "", "", err
	}
	return prompt, stagekit.Transcript(turns), nil
}

// horizonOf is the number of rounds a rollout from st plays: the
// configured horizon within the episode's round budget, the whole
// remaining budget by default.
func (r *rollouts) horizonOf(st dstate) int {
	if r.cfg.Horizon > 0 {
		return min(r.cfg.Horizon, st.Budget)
	}
	return st.Budget
}

// episode is one trajectory as GRPO trains on it: the Director prompt at
// the state and the first directive's tokens, which alone get loss; the
// reward is the whole trajectory's. A draw that failed (no tokens) keeps
// the prompt with no trainable token.
func (r *rollouts) episode(chat *policyChat, prompt []llm.Message, x dialogue.Rollout, v float64) (train.Episode, error) {
	dt, ok := chat.tokens(x.Drawn)
	if !ok {
		var err error
		if dt.prompt, err = chat.encode(prompt, nil); err != nil {
			return train.Episode{}, err
		}
	}
	ep := train.Episode{IDs: append(append([]int(nil), dt.prompt...), dt.completion...), Completion: x.DirectiveOutput}
	if len(dt.completion) == 0 {
		ep.IDs = append(ep.IDs, r.tok.EOS())
	}
	ep.Trainable = make([]bool, len(ep.IDs))
	for k := range dt.completion {
		// A token the schema forced was not the policy's choice: its
		// advantage-weighted gradient is noise that, on a directive of ~45
		// tokens with a handful of free ones, drowned the agent's choice.
		ep.Trainable[len(dt.prompt)+k] = k >= len(dt.forced) || !dt.forced[k]
	}
	if !math.IsNaN(v) {
		ep.Reward = &v
	}
	return ep, nil
}

// chatter is the Chatter of policy pol's rollouts. In endpoint mode it
// first writes pol's adapter and hot-loads it into the endpoint as
// "<stage>-<unit>-<tag>" (the previous generation's is unloaded); a nil
// adapter uses the endpoint's own model, the base.
func (r *rollouts) chatter(ctx context.Context, pol *train.Policy, tag string) (*policyChat, error) {
	c := &policyChat{next: r.set.Router(), tok: r.tok, temperature: r.cfg.Temperature, maxTokens: r.cfg.MaxCompletionLength}
	if r.endpoint == "" {
		c.think = r.env.Exp.Endpoints[r.set.Endpoint(dialogue.RoleDirector)].EnableThinking
		c.policy, c.grammar = pol, r.gram
		return c, nil
	}
	c.think, c.client, c.endpoint = r.env.Exp.Endpoints[r.endpoint].EnableThinking, r.env.LLM, r.endpoint
	c.grammar = r.gram // only to tell the tokens the schema forced
	if pol.Adapter == nil {
		return c, nil
	}
	alias := fmt.Sprintf("%s-%s-%s", r.key, r.fp[:min(12, len(r.fp))], tag)
	if alias != r.alias {
		dir := filepath.Join(r.adDir, tag)
		if err := pol.Adapter.Save(dir); err != nil {
			return nil, fmt.Errorf("writing the rollout adapter: %w", err)
		}
		if err := r.env.LLM.LoadAdapter(context.WithoutCancel(ctx), r.endpoint, alias, dir); err != nil && !errors.Is(err, llm.ErrAdapterExists) {
			return nil, fmt.Errorf("hot-loading the Director's adapter into endpoint %s: %w", r.endpoint, err)
		}
		r.unload(ctx)
		r.alias = alias
	}
	c.alias = r.alias
	return c, nil
}

// unload drops the alias the endpoint serves (best effort: a stale
// adapter only costs the server memory).
func (r *rollouts) unload(ctx context.Context) {
	if r.alias != "" {
		_ = r.env.LLM.UnloadAdapter(context.WithoutCancel(ctx), r.endpoint, r.alias)
		r.alias = ""
	}
}

func (r *rollouts) close(ctx context.Context) {
	if r.endpoint != "" {
		r.unload(ctx)
	}
}
