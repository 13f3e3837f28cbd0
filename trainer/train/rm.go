package train

import (
	"context"
	"fmt"

	"mascot.dev/mascot/trainer/loss"
	"mascot.dev/mascot/trainer/pass"
	"mascot.dev/mascot/trainer/qwen3"
)

// RMJob trains a Bradley–Terry reward model on preference pairs.
type RMJob struct {
	Options
	// Base is the causal-LM backbone; its LM head is dropped and a score
	// head [1, hidden] is added.
	Base *qwen3.Model
	// BaseDir, read when Base is nil, is the base's checkpoint directory,
	// loaded one tensor at a time straight onto the backend (a BF16
	// checkpoint stays BF16): no float32 copy of the base is ever held.
	BaseDir   string
	Tokenizer Tokenizer
	Pairs     []Pair
	// EvalPairs, when given, are scored after training (Result.Eval
	// "accuracy", "loss", "margin" and "pairs"), and every EvalEvery
	// optimizer steps (0: only at the end) into that step's Metrics.Extra
	// "heldout_accuracy" and "heldout_loss". The loss is the training
	// objective (margins and centering included) on the held-out pairs.
	EvalPairs []Pair
	EvalEvery int
	// MaxPromptLength > 0 keeps each prompt's last MaxPromptLength tokens
	// (EncodeScored); whoever scores with the model must cut the same way.
	MaxPromptLength int
	// CenterRewardsCoefficient is TRL's center_rewards_coefficient (0 = off).
	CenterRewardsCoefficient float64
}

// TrainRewardModel trains the score head with LoRA (or every weight when
// LoRA is nil) and saves a merged Qwen3ForSequenceClassification
// checkpoint (num_labels 1, pad_token_id = the tokenizer's pad).
func TrainRewardModel(ctx context.Context, job RMJob) (Result, error) {
	o := job.Options.withDefaults()
	base := baseSource{job.Base, job.BaseDir}
	cfg, err := base.config()
	if err != nil {
		return Result{}, fmt.Errorf("training reward model: %w", err)
	}
	pairs := encodePairs(job.Tokenizer, job.Pairs, job.MaxPromptLength, o.MaxLength, dropOverLong)
	if len(pairs) == 0 {
		return Result{}, fmt.Errorf("training reward model: no pair fits within max length %d", o.MaxLength)
	}
	m, err := newPolicy(base, o, true)
	if err != nil {
		return Result{}, fmt.Errorf("training reward model: %w", err)
	}
	defer m.Close()
	s, err := newSession("reward-model", o, m, cfg)
	if err != nil {
		return Result{}, err
	}
	defer s.close()
	pad := job.Tokenizer.Pad()
	eval := encodePairs(job.Tokenizer, job.EvalPairs, job.MaxPromptLength, o.MaxLength, dropOverLong)
	var last *rmEval // the evaluation after the last step, when there was one
	evaluate := func() (rmEval, error) {
		return evalRM(ctx, m, eval, pad, o.BatchSize, job.CenterRewardsCoefficient)
	}
	if len(eval) > 0 && job.EvalEvery > 0 {
		s.afterStep = func(k int, met *Metrics) error {
			if (k+1)%job.EvalEvery != 0 && k+1 != o.Steps {
				return nil
			}
			ev, err := evaluate()
			if err != nil {
				return err
			}
			met.Extra["heldout_accuracy"], met.Extra["heldout_loss"] = ev.accuracy, ev.loss
			if k+1 == o.Steps {
				last = &ev
			}
			return nil
		}
	}
	for k := s.start; k < o.Steps; k++ {
		if err := s.begin(ctx); err != nil {
			return s.res, err
		}
		var met Metrics
		var acc, margin, chosenMean float64
		for j := 0; j < o.GradAccum; j++ {
			idx := s.pick(len(pairs), k, j, pairLen(pairs))
			b := pairBatch(pairs, idx)
			at := pooled(b, pad)
			// No LoRA dropout: TRL's disable_dropout=True. The score head
			// runs at the pooled tokens only.
			ro := pass.RunOptions{ScoreAt: at}
			n, ga := len(idx), float64(o.GradAccum)
			rc := make([]float64, n)
			var bt loss.BTResult
			// The loss's seeds come from the scores of the backward's own
			// forward half: no separate Forward pass.
			_, err := m.BackwardScores(ctx, b, ro, func(score [][]float64) ([][]float64, error) {
				rr, mg := make([]float64, n), make([]float64, n)
				for i := range idx {
					rc[i], rr[i], mg[i] = score[i][at[i]], score[n+i][at[n+i]], pairs[idx[i]].margin
				}
				var err error
				if bt, err = loss.BradleyTerry(rc, rr, mg, job.CenterRewardsCoefficient); err != nil {
					return nil, err
				}
				seed := make([][]float64, 2*n)
				for r := range seed {
					seed[r] = make([]float64, len(score[r]))
				}
				for i := range idx {
					seed[i][at[i]] = bt.DChosen[i] / ga
					seed[n+i][at[n+i]] = bt.DRejected[i] / ga
				}
				return seed, nil
			})
			if err != nil {
				return s.res, fmt.Errorf("reward model step %d: %w", k+1, err)
			}
			met.Loss += bt.Loss / ga
			met.Tokens += 2 * 2 * n * b.Len() // one backward pass (forward and backward halves)
			acc += bt.Accuracy / ga
			margin += bt.Margin / ga
			chosenMean += mean(rc) / ga
		}
		met.RewardMean = chosenMean
		met.Extra = map[string]float64{"accuracy": acc, "margin": margin}
		if err := s.finish(k, met); err != nil {
			return s.res, err
		}
	}
	if len(eval) > 0 {
		if last == nil {
			ev, err := evaluate()
			if err != nil {
				return s.res, err
			}
			last = &ev
		}
		s.res.Eval = map[string]float64{"accuracy": last.accuracy, "loss": last.loss, "margin": last.margin,
			"pairs": float64(len(eval))}
	}
	if err := saveRewardModel(s, cfg, pad); err != nil {
		return s.res, err
	}
	return s.res, nil
}

// rmEval is a reward model's result on a pair set: the share of pairs it
// ranks right, the Bradley–Terry loss and the mean score gap.
type rmEval struct{ accuracy, loss, margin float64 }

// evalRM scores pairs (no gradients) and returns accuracy, the training
// objective (with the pairs' margins and centering coefficient center)
// and the mean margin, each averaged over the pairs.
func evalRM(ctx context.Context, m Network, pairs []encodedPair, pad, batch int, center float64) (rmEval, error) {
	var ev rmEval
	for lo := 0; lo < len(pairs); lo += batch {
		var idx []int
		for i := lo; i < min(lo+batch, len(pairs)); i++ {
			idx = append(idx, i)
		}
		b := pairBatch(pairs, idx)
		at := pooled(b, pad)
		out, err := m.Forward(ctx, b, pass.RunOptions{ScoreAt: at})
		if err != nil {
			return ev, fmt.Errorf("evaluating reward model: %w", err)
		}
		n := len(idx)
		rc, rr, mg := make([]float64, n), make([]float64, n), make([]float64, n)
		for i := range idx {
			rc[i], rr[i], mg[i] = out.Score[i][at[i]], out.Score[n+i][at[n+i]], pairs[idx[i]].margin
		}
		bt, err := loss.BradleyTerry(rc, rr, mg, center)
		if err != nil {
			return ev, fmt.Errorf("evaluating reward model: %w", err)
		}
		// BradleyTerry averages over its n pairs; weigh each batch by n.
		w := float64(n) / float64(len(pairs))
		ev.accuracy += bt.Accuracy * w
		ev.loss += bt.Loss * w
		ev.margin += bt.Margin * w
	}
	return ev, nil
}

// pooled is each row's pooled position: its last non-pad token.
func pooled(b pass.Batch, pad int) []int {
	at := make([]int, len(b.IDs))
	for r, row := range b.IDs {
		at[r] = loss.LastNonPad(row, pad)
	}
	return at
}

// saveRewardModel writes the merged sequence-classification checkpoint.
func saveRewardModel(s *session, base qwen3.Config, pad int) error {
	cfg := base
	cfg.Architectures = []string{qwen3.SequenceClassification}
	cfg.NumLabels = 1
	cfg.PadTokenID = &pad
	qm, err := qwen3.New(cfg, s.model.MergedWeights())
	if err != nil {
		return fmt.Errorf("saving reward model: %w", err)
	}
	if err := qm.Save(s.o.OutputDir); err != nil {
		return fmt.Errorf("saving reward model: %w", err)
	}
	s.res.Kind = "model"
	return s.hashOutput()
}
