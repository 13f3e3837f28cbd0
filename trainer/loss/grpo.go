package loss

import (
	"fmt"
	"math"
)

// GRPO loss aggregations (TRL loss_type).
const (
	LossGRPO   = "grpo"
	LossBNPO   = "bnpo"
	LossDrGRPO = "dr_grpo"
	LossDAPO   = "dapo"
)

// GRPOConfig holds the GRPO hyper-parameters that shape the loss.
type GRPOConfig struct {
	// Beta weights the k3 KL to the reference (adapter disabled); 0 skips it.
	Beta float64
	// Epsilon is the lower clip bound ε_low; EpsilonHigh the upper one
	// (0 means = Epsilon).
	Epsilon, EpsilonHigh float64
	// Delta, when > 0, caps the unclipped ratio (two-sided clipping).
	Delta float64
	// LossType is grpo, bnpo, dr_grpo or dapo (TRL's default).
	LossType string
	// Sequence selects sequence-level importance ratios (GSPO) instead of
	// per-token ones.
	Sequence bool
	// MaxCompletionLength is dr_grpo's constant normaliser.
	MaxCompletionLength int
	// GradAccum is the number of micro-batches per optimizer step (≥ 1);
	// grpo, bnpo and dr_grpo divide by it.
	GradAccum int
	// NumItemsInBatch is dapo's normaliser: active completion tokens of the
	// whole generation batch; 0 means this micro-batch's tokens.
	NumItemsInBatch float64
}

// GRPOInput is one micro-batch of completions.
type GRPOInput struct {
	// LogP are the current policy's per-token log-probs (temperature applied).
	LogP [][]float64
	// OldLogP are the log-probs at generation time; nil means LogP
	// detached (num_iterations = 1), so every ratio is 1.
	OldLogP [][]float64
	// RefLogP are the reference (adapter-disabled) log-probs; needed when Beta ≠ 0.
	RefLogP [][]float64
	// Mask marks the completion tokens that count (see CompletionMask).
	Mask [][]float64
	// Advantages holds one advantage per sequence.
	Advantages []float64
}

// GRPOResult is the loss, its gradient and TRL's logged metrics.
type GRPOResult struct {
	Loss float64
	// DLogP is dLoss/dLogP per token.
	DLogP [][]float64
	// KL is the masked token mean of the k3 estimate (0 when Beta = 0).
	KL float64
	// ClipRatio is the masked fraction of tokens whose ratio was clipped
	// in the direction that matters (ρ < 1−ε_low with A < 0, or
	// ρ > 1+ε_high with A > 0), as TRL's clip_ratio/region_mean.
	ClipRatio float64
}

// GRPO computes TRL's GRPO loss on one micro-batch (docs/design/trl-losses.md, "GRPO"):
// L_tok = −min(ρ·A, clip(ρ, 1−ε_low, 1+ε_high)·A) + β·KL_k3, aggregated
// by LossType.
func GRPO(c GRPOConfig, in GRPOInput) (GRPOResult, error) {
	B := len(in.LogP)
	if B == 0 || len(in.Mask) != B || len(in.Advantages) != B ||
		(in.OldLogP != nil && len(in.OldLogP) != B) || (c.Beta != 0 && len(in.RefLogP) != B) {
		return GRPOResult{}, fmt.Errorf("computing grpo loss: inconsistent batch (%d log-prob rows, %d masks, %d advantages)", B, len(in.Mask), len(in.Advantages))
	}
	epsLow, epsHigh := c.Epsilon, c.EpsilonHigh
	if epsHigh == 0 {
		epsHigh = epsLow
	}
	ga := float64(max(c.GradAccum, 1))
	tokens := sum2(in.Mask)
	// w[i][t]: weight of token loss L[i][t] in the aggregated loss.
	w := zerosLike(in.Mask)
	for i := range in.Mask {
		if len(in.Mask[i]) != len(in.LogP[i]) {
			return GRPOResult{}, fmt.Errorf("computing grpo loss: row %d has %d log-probs and %d mask values", i, len(in.LogP[i]), len(in.Mask[i]))
		}
		var rowTok float64
		for _, m := range in.Mask[i] {
			rowTok += m
		}
		for t, m := range in.Mask[i] {
			switch c.LossType {
			case LossGRPO:
				w[i][t] = m / (math.Max(1, rowTok) * float64(B) * ga)
			case LossBNPO:
				w[i][t] = m / (math.Max(1, tokens) * ga)
			case LossDrGRPO:
				if c.MaxCompletionLength <= 0 {
					return GRPOResult{}, fmt.Errorf("computing grpo loss: dr_grpo needs max_completion_length")
				}
				w[i][t] = m / (float64(B*c.MaxCompletionLength) * ga)
			case LossDAPO, "":
				n := c.NumItemsInBatch
				if n == 0 {
					n = tokens
				}
				w[i][t] = m / math.Max(1, n)
			default:
				return GRPOResult{}, fmt.Errorf("computing grpo loss: unknown loss_type %q", c.LossType)
			}
		}
	}
	res := GRPOResult{DLogP: zerosLike(in.LogP)}
	var clipped float64
	for i := range in.LogP {
		a := in.Advantages[i]
		old := func(t int) float64 {
			if in.OldLogP == nil {
				return in.LogP[i][t]
			}
			return in.OldLogP[i][t]
		}
		var rowTok, seqLog float64
		for t, m := range in.Mask[i] {
			rowTok += m
			seqLog += m * (in.LogP[i][t] - old(t))
		}
		seqLog /= math.Max(1, rowTok)
		var rowW float64
		for _, x := range w[i] {
			rowW += x
		}
		for t := range in.LogP[i] {
			logRatio := in.LogP[i][t] - old(t)
			if c.Sequence {
				logRatio = seqLog
			}
			p, dp, clip := policyTerm(math.Exp(logRatio), a, epsLow, epsHigh, c.Delta)
			if c.Sequence {
				// dp is dP/dlogRatio; logRatio is the masked mean of the row.
				res.DLogP[i][t] += rowW * dp * in.Mask[i][t] / math.Max(1, rowTok)
			} else {
				res.DLogP[i][t] += w[i][t] * dp
			}
			res.Loss += w[i][t] * p
			if clip {
				clipped += in.Mask[i][t]
			}
			if c.Beta != 0 {
				d := in.RefLogP[i][t] - in.LogP[i][t]
				kl := math.Exp(d) - d - 1
				res.Loss += w[i][t] * c.Beta * kl
				res.DLogP[i][t] += w[i][t] * c.Beta * (1 - math.Exp(d))
				res.KL += in.Mask[i][t] * kl
			}
		}
	}
	if tokens > 0 {
		res.KL /= tokens
		res.ClipRatio = clipped / tokens
	}
	return res, nil
}

// policyTerm returns P = −min(ρ₁·A, clip(ρ)·A) with ρ₁ = min(ρ, δ) when δ
// is set, its derivative with respect to log ρ, and whether the token
// counts as clipped for the metric.
func policyTerm(rho, a, epsLow, epsHigh, delta float64) (p, dLog float64, clipped bool) {
	r1, d1 := rho, rho
	if delta > 0 && rho > delta {
		r1, d1 = delta, 0
	}
	r2, d2 := rho, rho
	if rho < 1-epsLow {
		r2, d2 = 1-epsLow, 0
	} else if rho > 1+epsHigh {
		r2, d2 = 1+epsHigh, 0
	}
	t1, t2 := r1*a, r2*a
	switch {
	case t1 < t2:
		p, dLog = -t1, -d1*a
	case t2 < t1:
		p, dLog = -t2, -d2*a
	default: // tie: torch splits the gradient evenly
		p, dLog = -t1, -(d1+d2)*a/2
	}
	clipped = (rho < 1-epsLow && a < 0) || (rho > 1+epsHigh && a > 0)
	return p, dLog, clipped
}
