package train

import (
	"context"
	"fmt"

	"mascot.dev/mascot/trainer/loss"
	"mascot.dev/mascot/trainer/pass"
	"mascot.dev/mascot/trainer/qwen3"
)

// DPOJob trains a LoRA policy with DPO (sigmoid loss) on preference pairs;
// the reference is the base with the adapter disabled.
type DPOJob struct {
	Options
	Base *qwen3.Model
	// BaseDir, read when Base is nil, is the base's checkpoint directory,
	// loaded straight onto the backend.
	BaseDir   string
	Tokenizer Tokenizer
	Pairs     []Pair
	// Beta is DPO's β (default 0.1, TRL's).
	Beta float64
	// EvalPairs, when given, are held out: scored before the first step
	// and after the last (Result.Eval "accuracy_before", "accuracy",
	// "loss_before", "loss", "margin", "pairs"). Accuracy is the share
	// of pairs whose implicit reward β·(log π/π_ref) is higher for the
	// chosen completion (strictly: an untrained adapter, equal to the
	// reference, ranks none), the loss DPO's sigmoid loss.
	EvalPairs []Pair
	// MaxPromptLength > 0 keeps each prompt's last MaxPromptLength tokens
	// (TRL's max_prompt_length, which cuts prompts from the start) before
	// the first max_length tokens of prompt and completion are kept: a
	// long conversation prompt then leaves room for the completions.
	MaxPromptLength int
}

// TrainDPO runs DPO and saves the adapter.
func TrainDPO(ctx context.Context, job DPOJob) (Result, error) {
	o := job.Options.withDefaults()
	if err := loraOnly("dpo", o); err != nil {
		return Result{}, err
	}
	if job.Beta == 0 {
		job.Beta = 0.1
	}
	if job.Base == nil && job.BaseDir == "" {
		return Result{}, fmt.Errorf("training dpo: no base model")
	}
	pairs := encodePairs(job.Tokenizer, job.Pairs, job.MaxPromptLength, o.MaxLength, keepStart)
	if len(pairs) == 0 {
		return Result{}, fmt.Errorf("training dpo: no pair with a non-empty prompt")
	}
	base := baseSource{job.Base, job.BaseDir}
	cfg, err := base.config()
	if err != nil {
		return Result{}, fmt.Errorf("training dpo: %w", err)
	}
	m, err := newPolicy(base, o, false)
	if err != nil {
		return Result{}, fmt.Errorf("training dpo: %w", err)
	}
	defer m.Close()
	// The held-out pairs' reference log-probs, and the policy's figures
	// on them before a checkpoint is restored.
	eval := encodePairs(job.Tokenizer, job.EvalPairs, job.MaxPromptLength, o.MaxLength, keepStart)
	var evRefC, evRefR []float64
	var before dpoEval
	if len(eval) > 0 {
		if evRefC, evRefR, err = dpoRefs(ctx, m, eval, o.BatchSize); err != nil {
			return Result{}, fmt.Errorf("training dpo: held-out reference: %w", err)
		}
		if before, err = evalDPO(ctx, m, eval, evRefC, evRefR, job.Beta, o.BatchSize); err != nil {
			return Result{}, fmt.Errorf("training dpo: %w", err)
		}
	}
	s, err := newSession("dpo", o, m, cfg)
	if err != nil {
		return Result{}, err
	}
	defer s.close()
	// The reference never changes: compute each pair's once.
	refC, refR := make([]float64, len(pairs)), make([]float64, len(pairs))
	known := make([]bool, len(pairs))
	for k := s.start; k < o.Steps; k++ {
		if err := s.begin(ctx); err != nil {
			return s.res, err
		}
		var met Metrics
		extra := map[string]float64{}
		for j := 0; j < o.GradAccum; j++ {
			idx := s.pick(len(pairs), k, j, pairLen(pairs))
			b := pairBatch(pairs, idx)
			n := len(idx)
			from := make([]int, 2*n) // log-probs of the completions only
			for r, i := range idx {
				from[r], from[n+r] = pairs[i].start-1, pairs[i].start-1
			}
			var missing bool
			for _, i := range idx {
				missing = missing || !known[i]
			}
			if missing {
				ref, err := m.Forward(ctx, b, pass.RunOptions{DisableAdapter: true, LogPFrom: from})
				if err != nil {
					return s.res, fmt.Errorf("dpo step %d: reference: %w", k+1, err)
				}
				for r, i := range idx {
					refC[i] = completionLogP(ref.LogP[r], pairs[i].start, len(pairs[i].chosen))
					refR[i] = completionLogP(ref.LogP[n+r], pairs[i].start, len(pairs[i].rejected))
					known[i] = true
				}
				met.Tokens += 2 * n * ref.T
			}
			ro := pass.RunOptions{LogPFrom: from} // no LoRA dropout: TRL's disable_dropout=True
			out, err := m.Forward(ctx, b, ro)
			if err != nil {
				return s.res, fmt.Errorf("dpo step %d: %w", k+1, err)
			}
			pc, pr, rc, rr := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
			for r, i := range idx {
				pc[r] = completionLogP(out.LogP[r], pairs[i].start, len(pairs[i].chosen))
				pr[r] = completionLogP(out.LogP[n+r], pairs[i].start, len(pairs[i].rejected))
				rc[r], rr[r] = refC[i], refR[i]
			}
			d, err := loss.DPOSigmoid(job.Beta, pc, pr, rc, rr)
			if err != nil {
				return s.res, err
			}
			ga := float64(o.GradAccum)
			seed := make([][]float64, 2*n)
			for r, i := range idx {
				seed[r] = completionSeed(pairs[i].start, len(pairs[i].chosen), out.T, d.DChosen[r]/ga)
				seed[n+r] = completionSeed(pairs[i].start, len(pairs[i].rejected), out.T, d.DRejected[r]/ga)
			}
			if _, err := m.Backward(ctx, b, ro, seed, nil); err != nil {
				return s.res, fmt.Errorf("dpo step %d: %w", k+1, err)
			}
			met.Loss += d.Loss / ga
			met.Tokens += 3 * 2 * n * out.T
			extra["margin"] += d.Margin / ga
			extra["accuracy"] += d.Accuracy / ga
			extra["reward_chosen"] += d.RewardChosen / ga
			extra["reward_rejected"] += d.RewardRejected / ga
		}
		met.Extra = extra
		met.RewardMean = extra["reward_chosen"]
		if err := s.finish(k, met); err != nil {
			return s.res, err
		}
	}
	if len(eval) > 0 {
		after, err := evalDPO(ctx, m, eval, evRefC, evRefR, job.Beta, o.BatchSize)
		if err != nil {
			return s.res, fmt.Errorf("training dpo: %w", err)
		}
		s.res.Eval = map[string]float64{"accuracy_before": before.accuracy, "accuracy": after.accuracy,
			"loss_before": before.loss, "loss": after.loss, "margin": after.margin, "pairs": float64(len(eval))}
	}
	if err := s.writeOutput(); err != nil {
		return s.res, err
	}
	return s.res, nil
}

// completionSeed puts g on every position that predicts a completion token.
func completionSeed(start, n, T int, g float64) []float64 {
	out := make([]float64, T)
	for t := start - 1; t < n-1; t++ {
		out[t] = g
	}
	return out
}
