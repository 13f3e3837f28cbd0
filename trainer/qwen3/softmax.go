package qwen3

import "math"

// SoftmaxExps is the first part of LogSoftmaxProbs for a sampler that
// needs the log-prob of the token it draws only: it writes
// p[i] = e^(logits[i]/temperature − mx), not yet normalised, to probs
// (grown when shorter than logits), mx being the largest
// logits[i]/temperature. With sum the sum of p in index order
// (SumsInOrder) and lse = mx + log(sum), the log-prob of token i is
// float32(float64(logits[i]/temperature) − lse), the bits LogSoftmax
// gives for it, and Normalise gives the probabilities. ok is false where
// LogSoftmax would return NaN (a NaN or +Inf logit, or no finite one).
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

// SumsInOrder sets sums[s] to the sum of ps[s] in index order, the bits
// of a plain loop. A sum of a vocabulary's probabilities is a chain of
// dependent additions, bound by the adder's latency: four vectors go
// through one loop together, their chains overlapping.
func SumsInOrder(ps [][]float64, sums []float64) {
	s := 0
	for ; s+4 <= len(ps) && sameLen(ps[s:s+4]); s += 4 {
		a, b, c, d := ps[s], ps[s+1], ps[s+2], ps[s+3]
		n := len(a)
		b, c, d = b[:n], c[:n], d[:n]
		var sa, sb, sc, sd float64
		for i := range n {
			sa += a[i]
			sb += b[i]
			sc += c[i]
			sd += d[i]
		}
		sums[s], sums[s+1], sums[s+2], sums[s+3] = sa, sb, sc, sd
	}
	for ; s < len(ps); s++ {
		var sum float64
		for _, v := range ps[s] {
			sum += v
		}
		sums[s] = sum
	}
}

// Normalise divides each ps[s] by sums[s] (a multiply by 1/sum) and sets
// totals[s] to the sum of the normalised values in index order (what a
// draw over the probabilities adds up first), four vectors at a time as
// SumsInOrder.
func Normalise(ps [][]float64, sums, totals []float64) {
	s := 0
	for ; s+4 <= len(ps) && sameLen(ps[s:s+4]); s += 4 {
		a, b, c, d := ps[s], ps[s+1], ps[s+2], ps[s+3]
		n := len(a)
		b, c, d = b[:n], c[:n], d[:n]
		ia, ib, ic, id := 1/sums[s], 1/sums[s+1], 1/sums[s+2], 1/sums[s+3]
		var ta, tb, tc, td float64
		for i := range n {
			a[i] *= ia
			ta += a[i]
			b[i] *= ib
			tb += b[i]
			c[i] *= ic
			tc += c[i]
			d[i] *= id
			td += d[i]
		}
		totals[s], totals[s+1], totals[s+2], totals[s+3] = ta, tb, tc, td
	}
	for ; s < len(ps); s++ {
		p, inv := ps[s], 1/sums[s]
		var total float64
		for i := range p {
			p[i] *= inv
			total += p[i]
		}
		totals[s] = total
	}
}

func sameLen(ps [][]float64) bool {
	for _, p := range ps[1:] {
		if len(p) != len(ps[0]) {
			return false
		}
	}
	return true
}
