package qwen3

import "math"

// SoftmaxLSE is LogSoftmaxProbs for a sampler that needs the log-prob of
// the token it draws only: it writes softmax(logits/temperature) to probs
// (grown when shorter than logits) and returns lse, so that the log-prob
// of token i is float32(float64(logits[i]/temperature) − lse), the bits
// LogSoftmax gives for it. ok is false where LogSoftmax would return NaN
// (a NaN or +Inf logit, or no finite one).
//
// It skips LogSoftmax's vocabulary-long float32 output and its pass: the
// maximum is taken over the logits before the division (dividing by a
// positive temperature keeps the order, and rounding keeps it too), and
// each logit is divided where its exponential is prepared.
func SoftmaxLSE(logits []float32, temperature float32, probs []float64) (p []float64, lse float64, ok bool) {
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
	mx := float64(top / temperature)
	if math.IsInf(mx, 0) {
		return p, 0, false
	}
	for i := scaleShiftFast(p, logits, temperature, mx); i < len(logits); i++ {
		p[i] = float64(logits[i]/temperature) - mx
	}
	ExpNegs(p)
	var sum float64
	for _, v := range p {
		sum += v
	}
	inv := 1 / sum
	for i := range p {
		p[i] *= inv
	}
	return p, mx + math.Log(sum), true
}
