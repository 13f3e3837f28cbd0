package loss

import "fmt"

// BTResult is the Bradley–Terry loss of a batch of preference pairs.
type BTResult struct {
	Loss float64
	// DChosen and DRejected are dLoss/dr for each pair's two rewards.
	DChosen, DRejected []float64
	// Accuracy is mean(r_c > r_r); Margin is mean(r_c − r_r).
	Accuracy, Margin float64
}

// BradleyTerry computes TRL's reward-model loss (docs/design/trl-losses.md, "Reward model"):
// L = −mean(logσ(r_c − r_r − margin)) + c·mean((r_c + r_r)²), where c is
// center_rewards_coefficient (0 disables the centering term) and margin
// may be nil.
func BradleyTerry(chosen, rejected, margin []float64, center float64) (BTResult, error) {
	n := len(chosen)
	if n == 0 || len(rejected) != n || (margin != nil && len(margin) != n) {
		return BTResult{}, fmt.Errorf("computing bradley-terry loss: %d chosen, %d rejected, %d margins", n, len(rejected), len(margin))
	}
	res := BTResult{DChosen: make([]float64, n), DRejected: make([]float64, n)}
	fn := float64(n)
	for i := range chosen {
		z := chosen[i] - rejected[i]
		if margin != nil {
			z -= margin[i]
		}
		res.Loss -= LogSigmoid(z) / fn
		g := (1 - Sigmoid(z)) / fn // −d logσ(z)/dz / n
		res.DChosen[i] = -g
		res.DRejected[i] = g
		if center != 0 {
			s := chosen[i] + rejected[i]
			res.Loss += center * s * s / fn
			res.DChosen[i] += 2 * center * s / fn
			res.DRejected[i] += 2 * center * s / fn
		}
		if chosen[i] > rejected[i] {
			res.Accuracy += 1 / fn
		}
		res.Margin += (chosen[i] - rejected[i]) / fn
	}
	return res, nil
}
