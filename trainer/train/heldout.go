package train

import (
	"context"
	"fmt"
	"slices"
	"sort"

	"mascot.dev/mascot/trainer/loss"
	"mascot.dev/mascot/trainer/pass"
)

// Held-out evaluation of the loops that report a loss only while they
// train (pretraining, SFT, DPO): the caller passes data the loop never
// trains on, and the loop scores it without gradients once before the
// first step (on the model as built, before any checkpoint is restored,
// so a resumed run reports the same "before") and once after the last.
// The figures go into Result.Eval: "loss_before" and "loss" for all
// three, "accuracy_before" and "accuracy" for DPO, and the count of what
// was scored ("examples" and "tokens"; "pairs").

// nllSet is a held-out set of token rows with the mask of the positions
// whose next token is scored.
type nllSet struct {
	rows  [][]int
	masks [][]float64
}

// evalNLL is the mean masked next-token NLL (nats per scored token) of
// the set under m, no dropout, in batches of rows of similar length; it
// also returns the number of scored tokens.
func evalNLL(ctx context.Context, m Network, set nllSet, batch int) (float64, int, error) {
	order := make([]int, len(set.rows))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return len(set.rows[order[a]]) < len(set.rows[order[b]]) })
	var sum, tokens float64
	for lo := 0; lo < len(order); lo += batch {
		idx := order[lo:min(lo+batch, len(order))]
		var b pass.Batch
		for _, i := range idx {
			b.IDs = append(b.IDs, set.rows[i])
		}
		T := b.Len()
		mk := make([][]float64, len(idx))
		from := make([]int, len(idx))
		for r, i := range idx {
			mk[r], from[r] = pad(set.masks[i], T), firstSet(set.masks[i])
		}
		out, err := m.Forward(ctx, b, pass.RunOptions{LogPFrom: from})
		if err != nil {
			return 0, 0, fmt.Errorf("evaluating held-out loss: %w", err)
		}
		l, err := loss.MaskedNLL(out.LogP, mk, 1) // normaliser 1: the batch's summed NLL
		if err != nil {
			return 0, 0, fmt.Errorf("evaluating held-out loss: %w", err)
		}
		sum += l.Loss
		tokens += l.Tokens
	}
	if tokens == 0 {
		return 0, 0, fmt.Errorf("evaluating held-out loss: no token to score")
	}
	return sum / tokens, int(tokens), nil
}

// nllEval runs evalNLL before (into eval["loss_before"]) or after
// training (eval["loss"], with the counts) on the rows that have a token
// to score: max_length may cut an example's completion away (a long
// meeting transcript as an SFT prompt), and such an example is not
// scored. It does nothing when no row is left.
func nllEval(ctx context.Context, m Network, set nllSet, batch int, eval map[string]float64, key string) error {
	set = scorable(set)
	if len(set.rows) == 0 {
		return nil
	}
	l, n, err := evalNLL(ctx, m, set, batch)
	if err != nil {
		return err
	}
	eval[key] = l
	eval["examples"], eval["tokens"] = float64(len(set.rows)), float64(n)
	return nil
}

// dpoEval is a DPO policy's result on held-out pairs: the share whose
// implicit reward β·(log π/π_ref) of the chosen completion exceeds the
// rejected one's, the DPO (sigmoid) loss and the mean reward margin,
// each averaged over the pairs.
type dpoEval struct{ accuracy, loss, margin float64 }

// dpoRefs are the reference (adapter-disabled) completion log-probs of
// pairs, computed once.
func dpoRefs(ctx context.Context, m Network, pairs []encodedPair, batch int) (chosen, rejected []float64, err error) {
	chosen, rejected = make([]float64, len(pairs)), make([]float64, len(pairs))
	err = dpoBatches(ctx, m, pairs, batch, true, func(idx []int, pc, pr []float64) error {
		for r, i := range idx {
			chosen[i], rejected[i] = pc[r], pr[r]
		}
		return nil
	})
	return chosen, rejected, err
}

// evalDPO scores pairs with the policy against the reference log-probs.
func evalDPO(ctx context.Context, m Network, pairs []encodedPair, refC, refR []float64, beta float64, batch int) (dpoEval, error) {
	var ev dpoEval
	err := dpoBatches(ctx, m, pairs, batch, false, func(idx []int, pc, pr []float64) error {
		rc, rr := make([]float64, len(idx)), make([]float64, len(idx))
		for r, i := range idx {
			rc[r], rr[r] = refC[i], refR[i]
		}
		d, err := loss.DPOSigmoid(beta, pc, pr, rc, rr)
		if err != nil {
			return err
		}
		// DPOSigmoid averages over its pairs; weigh each batch by its size.
		w := float64(len(idx)) / float64(len(pairs))
		ev.accuracy += d.Accuracy * w
		ev.loss += d.Loss * w
		ev.margin += d.Margin * w
		return nil
	})
	if err != nil {
		return ev, fmt.Errorf("evaluating held-out pairs: %w", err)
	}
	return ev, nil
}

// dpoBatches runs forward passes over pairs in batches and hands each
// batch's chosen and rejected completion log-probs to f.
func dpoBatches(ctx context.Context, m Network, pairs []encodedPair, batch int, ref bool, f func(idx []int, pc, pr []float64) error) error {
	for lo := 0; lo < len(pairs); lo += batch {
		var idx []int
		for i := lo; i < min(lo+batch, len(pairs)); i++ {
			idx = append(idx, i)
		}
		n := len(idx)
		from := make([]int, 2*n)
		for r, i := range idx {
			from[r], from[n+r] = pairs[i].start-1, pairs[i].start-1
		}
		out, err := m.Forward(ctx, pairBatch(pairs, idx), pass.RunOptions{DisableAdapter: ref, LogPFrom: from})
		if err != nil {
			return err
		}
		pc, pr := make([]float64, n), make([]float64, n)
		for r, i := range idx {
			pc[r] = completionLogP(out.LogP[r], pairs[i].start, len(pairs[i].chosen))
			pr[r] = completionLogP(out.LogP[n+r], pairs[i].start, len(pairs[i].rejected))
		}
		if err := f(idx, pc, pr); err != nil {
			return err
		}
	}
	return nil
}

// scorable is set without the rows that have no scored position.
func scorable(set nllSet) nllSet {
	var out nllSet
	for i, mk := range set.masks {
		if slices.ContainsFunc(mk, func(v float64) bool { return v != 0 }) {
			out.rows, out.masks = append(out.rows, set.rows[i]), append(out.masks, mk)
		}
	}
	return out
}
