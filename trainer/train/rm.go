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
	// "accuracy" and "margin").
	EvalPairs []Pair
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
	pairs := encodePairs(job.Tokenizer, job.Pairs, o.MaxLength, dropOverLong)
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
	if eval := encodePairs(job.Tokenizer, job.EvalPairs, o.MaxLength, dropOverLong); len(eval) > 0 {
		acc, margin, err := evalRM(ctx, m, eval, pad, o.BatchSize)
		if err != nil {
			return s.res, err
		}
		s.res.Eval = map[string]float64{"accuracy": acc, "margin": margin, "pairs": float64(len(eval))}
	}
	if err := saveRewardModel(s, cfg, pad); err != nil {
		return s.res, err
	}
	return s.res, nil
}

// evalRM returns accuracy and mean margin of the model on pairs.
func evalRM(ctx context.Context, m Network, pairs []encodedPair, pad, batch int) (float64, float64, error) {
	var acc, margin float64
	for lo := 0; lo < len(pairs); lo += batch {
		var idx []int
		for i := lo; i < min(lo+batch, len(pairs)); i++ {
			idx = append(idx, i)
		}
		b := pairBatch(pairs, idx)
		at := pooled(b, pad)
		out, err := m.Forward(ctx, b, pass.RunOptions{ScoreAt: at})
		if err != nil {
			return 0, 0, fmt.Errorf("evaluating reward model: %w", err)
		}
		n := len(idx)
		for i := range idx {
			c, r := out.Score[i][at[i]], out.Score[n+i][at[n+i]]
			if c > r {
				acc++
			}
			margin += c - r
		}
	}
	return acc / float64(len(pairs)), margin / float64(len(pairs)), nil
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
