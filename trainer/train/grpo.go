package train

import (
	"context"
	"errors"
	"fmt"
	"math"

	"mascot.dev/mascot/trainer/loss"
	"mascot.dev/mascot/trainer/pass"
	"mascot.dev/mascot/trainer/qwen3"
	"mascot.dev/mascot/trainer/reward"
	"mascot.dev/mascot/trainer/sample"
)

// GRPOJob trains a LoRA policy with GRPO (docs/design/trl-losses.md, "GRPO").
type GRPOJob struct {
	// Options.BatchSize is the number of prompts per generation batch;
	// GradAccum splits its BatchSize·GroupSize episodes into micro-batches.
	Options
	Base      *qwen3.Model
	Tokenizer Tokenizer
	// Prompts are rendered prompts (chat template applied).
	Prompts []string
	// GroupSize is G, completions per prompt (≥ 2).
	GroupSize int
	// Reward scores a completion (see trainer/reward); an ErrAbstain
	// counts as a missing reward (advantage 0).
	Reward reward.Func
	// Rollout replaces the built-in single-turn sampler (endpoint rollouts,
	// director mode).
	Rollout RolloutFunc
	// MaxCompletionTokens caps sampled completions (default 32).
	MaxCompletionTokens int
	// Temperature (default 1), TopP and TopK shape sampling; Temperature
	// also divides the logits in the training log-probs, as TRL does.
	Temperature, TopP float64
	TopK              int
	// Loss holds beta, epsilon(s), delta, loss type and importance level;
	// zero Epsilon means 0.2 and empty LossType "dapo" (TRL defaults).
	// MaxCompletionLength, GradAccum and NumItemsInBatch are filled in.
	Loss loss.GRPOConfig
	// ScaleRewards is group (default), batch or none.
	ScaleRewards string
	// NumIterations is μ: optimizer steps per generation batch (default 1).
	NumIterations int
	// MaskTruncatedCompletions zeroes the mask of completions without EOS.
	MaskTruncatedCompletions bool
}

// TrainGRPO runs GRPO and saves the adapter.
func TrainGRPO(ctx context.Context, job GRPOJob) (Result, error) {
	o := job.Options.withDefaults()
	if err := loraOnly("grpo", o); err != nil {
		return Result{}, err
	}
	switch {
	case job.Base == nil || len(job.Prompts) == 0:
		return Result{}, fmt.Errorf("training grpo: a base model and prompts are required")
	case job.GroupSize < 2:
		return Result{}, fmt.Errorf("training grpo: group size %d, need at least 2", job.GroupSize)
	case job.Reward == nil && job.Rollout == nil:
		return Result{}, fmt.Errorf("training grpo: no reward function")
	}
	if job.MaxCompletionTokens <= 0 {
		job.MaxCompletionTokens = 32
	}
	if job.Temperature == 0 {
		job.Temperature = 1
	}
	if job.NumIterations <= 0 {
		job.NumIterations = 1
	}
	if job.ScaleRewards == "" {
		job.ScaleRewards = loss.ScaleGroup
	}
	lc := job.Loss
	if lc.Epsilon == 0 {
		lc.Epsilon = 0.2
	}
	if lc.LossType == "" {
		lc.LossType = loss.LossDAPO
	}
	lc.MaxCompletionLength, lc.GradAccum = job.MaxCompletionTokens, o.GradAccum
	maxPrompt := 0 // no limit
	if o.MaxLength > 0 {
		if maxPrompt = o.MaxLength - job.MaxCompletionTokens; maxPrompt < 1 {
			return Result{}, fmt.Errorf("training grpo: max length %d leaves no room for a prompt beside %d completion tokens", o.MaxLength, job.MaxCompletionTokens)
		}
	}
	rollout := job.Rollout
	if rollout == nil {
		rollout = defaultRollout(job.Tokenizer, job.MaskTruncatedCompletions, maxPrompt)
	}
	m, err := newPolicy(baseSource{model: job.Base}, o, false)
	if err != nil {
		return Result{}, fmt.Errorf("training grpo: %w", err)
	}
	defer m.Close()
	s, err := newSession("grpo", o, m, job.Base.Config)
	if err != nil {
		return Result{}, err
	}
	defer s.close()
	s.ckptMultiple = job.NumIterations
	g := &grpoRun{job: job, o: o, lc: lc, m: m, s: s, rollout: rollout}
	for k := s.start; k < o.Steps; k++ {
		if err := s.begin(ctx); err != nil {
			return s.res, err
		}
		if k%job.NumIterations == 0 || g.batch == nil {
			if err := g.generate(ctx, k/job.NumIterations); err != nil {
				return s.res, fmt.Errorf("grpo step %d: %w", k+1, err)
			}
		}
		met, err := g.optimize(ctx, k)
		if err != nil {
			return s.res, fmt.Errorf("grpo step %d: %w", k+1, err)
		}
		if err := s.finish(k, met); err != nil {
			return s.res, err
		}
	}
	if err := s.writeOutput(); err != nil {
		return s.res, err
	}
	return s.res, nil
}

// grpoRun holds one generation batch and what the loss needs about it.
type grpoRun struct {
	job     GRPOJob
	o       Options
	lc      loss.GRPOConfig
	m       Network
	s       *session
	rollout RolloutFunc

	batch      []Episode
	adv        []float64
	rewards    []float64
	masks      [][]float64 // per episode, per logp position
	from       []int       // per episode, the first position with a mask
	old, ref   [][]float64 // per episode logp at generation time (nil when unused)
	T          int
	truncated  int // episodes cut to MaxLength
	genTokens  int
	activeToks float64
}

// generate samples the generation batch of generation index gen and
// computes rewards, advantages, masks and (when needed) old and reference
// log-probs.
func (g *grpoRun) generate(ctx context.Context, gen int) error {
	job := g.job
	ad := adapterOf(g.m, g.o)
	view, err := job.Base.WithAdapters(ad)
	if err != nil {
		return fmt.Errorf("building sampling view: %w", err)
	}
	prompts := g.s.pickAt(len(job.Prompts), gen, nil)
	g.batch, g.rewards, g.truncated = nil, nil, 0
	for pi, idx := range prompts {
		pol := &Policy{Model: view, Adapter: ad, Generation: gen, Slot: pi,
			Params: sample.Params{Temperature: float32(job.Temperature), TopP: float32(job.TopP),
				TopK: job.TopK, MaxTokens: job.MaxCompletionTokens, StopTokens: []int{job.Tokenizer.EOS()},
				Seed: g.o.Seed*1_000_003 + uint64(gen)*7919 + uint64(pi)}}
		eps, err := g.rollout(ctx, job.Prompts[idx], job.GroupSize, pol)
		if err != nil {
			return fmt.Errorf("rolling out prompt %d: %w", idx, err)
		}
		if len(eps) != job.GroupSize {
			return fmt.Errorf("rollout of prompt %d returned %d episodes, want %d", idx, len(eps), job.GroupSize)
		}
		for _, ep := range eps {
			if len(ep.Trainable) != len(ep.IDs) || len(ep.IDs) < 2 {
				return fmt.Errorf("rollout of prompt %d: episode with %d ids and %d trainable flags", idx, len(ep.IDs), len(ep.Trainable))
			}
			if cut, ok := keepLast(ep, g.o.MaxLength); ok {
				ep = cut
				g.truncated++
			}
			r := math.NaN()
			switch {
			case ep.Reward != nil:
				r = *ep.Reward
			case job.Reward != nil:
				v, err := job.Reward(ctx, job.Prompts[idx], ep.Completion)
				if err != nil && !errors.Is(err, reward.ErrAbstain) {
					return fmt.Errorf("rewarding prompt %d: %w", idx, err)
				}
				if err == nil {
					r = v
				}
			}
			g.batch = append(g.batch, ep)
			g.rewards = append(g.rewards, r)
		}
	}
	if g.adv, err = loss.GroupAdvantages(g.rewards, job.GroupSize, job.ScaleRewards); err != nil {
		return err
	}
	g.T, g.activeToks, g.genTokens = 0, 0, 0
	g.masks, g.from = make([][]float64, len(g.batch)), make([]int, len(g.batch))
	for i, ep := range g.batch {
		g.T = max(g.T, len(ep.IDs))
		g.masks[i] = make([]float64, len(ep.IDs))
		for t := 1; t < len(ep.IDs); t++ {
			if ep.Trainable[t] {
				g.masks[i][t-1] = 1 // position t−1 predicts token t
				g.activeToks++
			}
		}
		g.from[i] = firstSet(g.masks[i])
	}
	// Round T up so that most generation batches share one compiled graph
	// of trainer/autodiff (trainer/net pads each group to its own rows).
	g.T = (g.T + 15) / 16 * 16
	for i := range g.masks {
		g.masks[i] = pad(g.masks[i], g.T)
	}
	g.old, g.ref = nil, nil
	if job.NumIterations > 1 {
		if g.old, err = g.logps(ctx, pass.RunOptions{Temperature: job.Temperature}); err != nil {
			return err
		}
	}
	if g.lc.Beta != 0 {
		if g.ref, err = g.logps(ctx, pass.RunOptions{Temperature: job.Temperature, DisableAdapter: true}); err != nil {
			return err
		}
	}
	return nil
}

// micro returns the episode indices of micro-batch j.
func (g *grpoRun) micro(j int) []int {
	n, ga := len(g.batch), g.o.GradAccum
	lo, hi := j*n/ga, (j+1)*n/ga
	idx := make([]int, 0, hi-lo)
	for i := lo; i < hi; i++ {
		idx = append(idx, i)
	}
	return idx
}

// rows returns the episodes idx as a batch and the first position of each
// whose log-prob the loss reads.
func (g *grpoRun) rows(idx []int) (pass.Batch, []int) {
	b := pass.Batch{T: g.T}
	from := make([]int, len(idx))
	for r, i := range idx {
		b.IDs = append(b.IDs, g.batch[i].IDs)
		from[r] = g.from[i]
	}
	return b, from
}

// logps runs forward passes over the whole generation batch.
func (g *grpoRun) logps(ctx context.Context, ro pass.RunOptions) ([][]float64, error) {
	out := make([][]float64, len(g.batch))
	for j := 0; j < g.o.GradAccum; j++ {
		idx := g.micro(j)
		if len(idx) == 0 {
			continue
		}
		b, from := g.rows(idx)
		ro.LogPFrom = from
		res, err := g.m.Forward(ctx, b, ro)
		if err != nil {
			return nil, err
		}
		for r, i := range idx {
			out[i] = res.LogP[r]
		}
		g.genTokens += len(idx) * g.T
	}
	return out, nil
}

func pickRows(all [][]float64, idx []int) [][]float64 {
	if all == nil {
		return nil
	}
	out := make([][]float64, len(idx))
	for r, i := range idx {
		out[r] = all[i]
	}
	return out
}

// optimize runs the GradAccum micro-batches of optimizer step k.
func (g *grpoRun) optimize(ctx context.Context, k int) (Metrics, error) {
	var met Metrics
	met.Tokens, g.genTokens = g.genTokens, 0
	met.RewardMean, met.RewardStd = loss.MeanStd(g.rewards)
	cfg := g.lc
	cfg.NumItemsInBatch = g.activeToks
	var klTok, clipTok float64
	for j := 0; j < g.o.GradAccum; j++ {
		idx := g.micro(j)
		if len(idx) == 0 {
			continue
		}
		b, from := g.rows(idx)
		ro := pass.RunOptions{Temperature: g.job.Temperature, Dropout: true, DropoutSeed: g.s.dropoutSeed(k, j), LogPFrom: from}
		in := loss.GRPOInput{OldLogP: pickRows(g.old, idx), RefLogP: pickRows(g.ref, idx), Mask: pickRows(g.masks, idx)}
		for _, i := range idx {
			in.Advantages = append(in.Advantages, g.adv[i])
		}
		// On-policy without KL the seeds do not depend on the log-probs
		// (ratio ≡ 1), so the separate forward pass is skipped.
		needForward := in.OldLogP != nil || cfg.Beta != 0
		if needForward {
			out, err := g.m.Forward(ctx, b, ro)
			if err != nil {
				return met, err
			}
			in.LogP = out.LogP
			met.Tokens += len(idx) * g.T
		} else {
			in.LogP = make([][]float64, len(idx))
			for r := range in.LogP {
				in.LogP[r] = make([]float64, g.T)
			}
		}
		res, err := loss.GRPO(cfg, in)
		if err != nil {
			return met, err
		}
		out, err := g.m.Backward(ctx, b, ro, res.DLogP, nil)
		if err != nil {
			return met, err
		}
		met.Tokens += 2 * len(idx) * g.T
		if !needForward {
			in.LogP = out.LogP
			if res, err = loss.GRPO(cfg, in); err != nil {
				return met, err
			}
		}
		met.Loss += res.Loss
		var toks float64
		for _, row := range in.Mask {
			for _, v := range row {
				toks += v
			}
		}
		klTok += res.KL * toks
		clipTok += res.ClipRatio * toks
	}
	if g.activeToks > 0 {
		met.KL, met.ClipFraction = klTok/g.activeToks, clipTok/g.activeToks
	}
	var compLen float64
	maxLen := 0
	for i, row := range g.masks {
		for _, v := range row {
			compLen += v
		}
		maxLen = max(maxLen, len(g.batch[i].IDs))
	}
	met.Extra = map[string]float64{"completion_length": compLen / float64(len(g.masks)),
		"sequence_length_max": float64(maxLen), "truncated_episodes": float64(g.truncated)}
	return met, nil
}
