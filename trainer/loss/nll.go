package loss

import "fmt"

// NLLResult is a masked negative log-likelihood.
type NLLResult struct {
	Loss float64
	// DLogP is dLoss/dlogp per token.
	DLogP [][]float64
	// Tokens is the number of counted tokens (Σ mask).
	Tokens float64
}

// MaskedNLL is the cross-entropy of SFT (completion tokens only) and of
// pretraining (every next token): L = −Σ m·logp / normalizer. A zero
// normalizer means Σ m of this batch; gradient accumulation passes the
// token count of the whole accumulated batch, as transformers does with
// num_items_in_batch.
func MaskedNLL(logp, mask [][]float64, normalizer float64) (NLLResult, error) {
	if len(logp) != len(mask) {
		return NLLResult{}, fmt.Errorf("computing nll: %d rows of log-probs, %d of mask", len(logp), len(mask))
	}
	res := NLLResult{DLogP: zerosLike(logp), Tokens: sum2(mask)}
	if normalizer == 0 {
		normalizer = res.Tokens
	}
	if normalizer == 0 {
		return res, nil
	}
	for i := range logp {
		if len(logp[i]) != len(mask[i]) {
			return NLLResult{}, fmt.Errorf("computing nll: row %d has %d log-probs and %d mask values", i, len(logp[i]), len(mask[i]))
		}
		for t := range logp[i] {
			res.Loss -= mask[i][t] * logp[i][t] / normalizer
			res.DLogP[i][t] = -mask[i][t] / normalizer
		}
	}
	return res, nil
}
