package sample

import (
	"math/rand/v2"

	"mascot.dev/mascot/trainer/qwen3"
)

// ChooseToken is Choose for an engine that reports the drawn token's
// log-prob only, not the whole distribution: the same token and log-prob
// from the same draws of r. Sampling over every token (no top-k, no
// top-p, a positive temperature), the common case, takes the
// probabilities from qwen3.SoftmaxLSE and computes one log-prob instead
// of the vocabulary's; everything else is Choose.
func ChooseToken(logits []float32, p Params, r *rand.Rand) (int, float32, error) {
	if p.Temperature == 0 || (p.TopK > 0 && p.TopK < len(logits)) || (p.TopP > 0 && p.TopP < 1) {
		tok, lp, _, err := Choose(logits, p, r)
		return tok, lp, err
	}
	t := p.Temperature
	if t < 0 {
		t = 1 // as LogSoftmaxProbs treats it
	}
	sp := scratch.Get().(*[]float64)
	defer scratch.Put(sp)
	e, lse, ok := qwen3.SoftmaxLSE(logits, t, *sp)
	*sp = e
	if !ok {
		return 0, 0, ErrNoToken
	}
	logProb := func(i int) float32 { return float32(float64(logits[i]/t) - lse) }
	// Choose's draw over every token.
	i := drawAny(e, r)
	return i, logProb(i), nil
}
