package loss

import "fmt"

// DPOResult is the DPO loss of a batch of pairs.
type DPOResult struct {
	Loss float64
	// DChosen and DRejected are dLoss/dlogπ(y|x) for the policy's summed
	// completion log-probs; every completion token gets the same seed.
	DChosen, DRejected []float64
	// RewardChosen and RewardRejected are the mean implicit rewards
	// β(logπ − logπ_ref); Margin is their mean difference; Accuracy the
	// fraction of pairs whose chosen implicit reward is higher.
	RewardChosen, RewardRejected, Margin, Accuracy float64
}

// DPOSigmoid computes TRL's default DPO loss (docs/design/trl-losses.md, "DPO"):
// L = −mean(logσ(β·Δ)), Δ = (logπ_c − logπref_c) − (logπ_r − logπref_r),
// with sequence log-probs summed over completion tokens. The reference is
// the policy with its adapter disabled.
func DPOSigmoid(beta float64, chosen, rejected, refChosen, refRejected []float64) (DPOResult, error) {
	n := len(chosen)
	if n == 0 || len(rejected) != n || len(refChosen) != n || len(refRejected) != n {
		return DPOResult{}, fmt.Errorf("computing dpo loss: mismatched batch sizes %d/%d/%d/%d", n, len(rejected), len(refChosen), len(refRejected))
	}
	res := DPOResult{DChosen: make([]float64, n), DRejected: make([]float64, n)}
	fn := float64(n)
	for i := range chosen {
		rc := chosen[i] - refChosen[i]
		rr := rejected[i] - refRejected[i]
		z := beta * (rc - rr)
		res.Loss -= LogSigmoid(z) / fn
		g := (1 - Sigmoid(z)) * beta / fn
		res.DChosen[i] = -g
		res.DRejected[i] = g
		res.RewardChosen += beta * rc / fn
		res.RewardRejected += beta * rr / fn
		res.Margin += beta * (rc - rr) / fn
		if rc > rr {
			res.Accuracy += 1 / fn
		}
	}
	return res, nil
}
