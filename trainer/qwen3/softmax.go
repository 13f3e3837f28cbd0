package qwen3

import "math"

// SoftmaxExps is the first part of LogSoftmaxProbs for a sampler that
// needs the log-prob of the token it draws only: it writes
// p[i] = e^(logits[i]/temperature − mx), not yet normalised, to probs
// (grown when shorter than logits), mx being the largest
// logits[i]/temperature. With sum the sum of p in index order and
// lse = mx + log(sum), the log-prob of token i is
// float32(float64(logits[i]/temperature) − lse), the bits LogSoftmax
// gives for it, and p[i]·(1/sum) is LogSoftmaxProbs's probability. ok is
// false where LogSoftmax would return NaN (a NaN or +Inf logit, or no
// finite one).
//
// It skips LogSoftmax's vocabulary-long float32 output and its pass: the
// maximum is taken over the logits before the division (dividing by a
// positive temperature keeps the order, and rounding keeps it too), and
// each logit is divided where its exponential is prepared. The sums are
// left to the caller so that a sampler drawing for several sequences runs
// their passes together (each sum keeps its order and bits, and the
// sequences' chains of additions overlap).
func SoftmaxExps(logits []float32, temperature float32, probs []float64) (p []float64, mx float64, ok bool) {
	if temperature <= 0 {
		temperature = 1
	}
	if len(probs) < len(logits) {
		probs = make([]float64, len(logits))
	}
	p = probs[:len(logits)]
	top, from := float32(math.Inf(-1)), 0
	// The vector maximum is taken unless it is zero (of two zeros the
	// loop keeps the first, whose sign the lanes lose) or a NaN came up.
	if t, nan, n := maxFast(logits); n > 0 && !nan && t != 0 {
		top, from = t, n
	}
	for _, v := range logits[from:] {
		if v > top {
			top = v
		} else if v != v {
			return p, 0, false
		}
	}
	mx = float64(top / temperature)
	if math.IsInf(mx, 0) {
		return p, 0, false
	}
	for i := scaleShiftFast(p, logits, temperature, mx); i < len(logits); i++ {
		p[i] = float64(logits[i]/temperature) - mx
	}
	ExpNegs(p)
	return p, mx, true
}
