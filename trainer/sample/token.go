package sample

import (
	"math"
	"math/rand/v2"

	"mascot.dev/mascot/trainer/qwen3"
)

// ChooseToken is Choose for an engine that reports the drawn token's
// log-prob only, not the whole distribution: the same token and log-prob
// from the same draws of r. Sampling over every token (no top-k, no
// top-p, a temperature other than 0), the common case, draws from the
// exponentials of qwen3's softmax without normalising them and computes
// one log-prob instead of the vocabulary's (drawEvery, as Choose does);
// everything else is Choose. It is ChooseTokens for one sequence.
func ChooseToken(logits []float32, p Params, r *rand.Rand) (int, float32, error) {
	var tok [1]int
	var lp [1]float32
	var err [1]error
	ChooseTokens([][]float32{logits}, []Params{p}, []*rand.Rand{r}, tok[:], lp[:], err[:])
	return tok[0], lp[0], err[0]
}

// ChooseTokens is ChooseToken for several sequences, each with its own
// logits, parameters and random stream: toks[i], lps[i] and errs[i] are
// what ChooseToken(logits[i], ps[i], rs[i]) returns alone, bit for bit.
// The sequences sampled over every token go through drawEvery together,
// their sums four to a loop; the others go through Choose.
func ChooseTokens(logits [][]float32, ps []Params, rs []*rand.Rand, toks []int, lps []float32, errs []error) {
	var fast []int
	var lgs [][]float32
	var ts []float32
	var frs []*rand.Rand
	for i := range logits {
		p := ps[i]
		if p.Temperature == 0 || truncates(p, len(logits[i])) {
			toks[i], lps[i], _, errs[i] = Choose(logits[i], p, rs[i])
			continue
		}
		fast, lgs, ts, frs = append(fast, i), append(lgs, logits[i]), append(ts, temperature(p)), append(frs, rs[i])
	}
	ftoks, lses, ferrs := make([]int, len(fast)), make([]float64, len(fast)), make([]error, len(fast))
	drawEvery(lgs, ts, frs, ftoks, lses, ferrs)
	for k, i := range fast {
		if ferrs[k] != nil {
			toks[i], lps[i], errs[i] = 0, 0, ferrs[k]
			continue
		}
		tok := ftoks[k]
		toks[i], lps[i], errs[i] = tok, logProb(logits[i][tok], ts[k], lses[k]), nil
	}
}

// truncates says whether p cuts the distribution of a vocabulary of n
// tokens (top-k or top-p) before the draw.
func truncates(p Params, n int) bool {
	return (p.TopK > 0 && p.TopK < n) || (p.TopP > 0 && p.TopP < 1)
}

// temperature is p's positive temperature: a negative one is taken as 1,
// as qwen3's softmaxes take it.
func temperature(p Params) float32 {
	if t := p.Temperature; t > 0 {
		return t
	}
	return 1
}

// logProb is a logit's log-prob at temperature t, lse being the log of
// the softmax's denominator plus its shift: LogSoftmax's bits.
func logProb(logit, t float32, lse float64) float32 {
	return float32(float64(logit/t) - lse)
}

// drawEvery is the draw over every token (no top-k, no top-p) for several
// sequences at temperatures ts (positive): toks[i] is drawn from
// softmax(logits[i]/ts[i]) with one draw of rs[i] (firstAbove, on the
// exponentials unnormalised), and lses[i] is mx + log(sum), sum the
// exponentials' sum in index order, so that logProb gives LogSoftmax's
// bits; errs[i] is ErrNoToken where LogSoftmax gives NaN (a NaN or +Inf
// logit, or no finite one). Choose and ChooseTokens both draw through it,
// so they give the same tokens from the same streams, and a sequence's
// draw does not depend on the others beside it.
func drawEvery(logits [][]float32, ts []float32, rs []*rand.Rand, toks []int, lses []float64, errs []error) {
	var ok []int
	var es, marks [][]float64
	var mxs []float64
	for i := range logits {
		b := scratch.Get().(*buffers)
		defer scratch.Put(b) // es and marks are in use until the draws below
		e, mx, good := qwen3.SoftmaxExps(logits[i], ts[i], b.e)
		b.e = e[:cap(e)]
		if !good {
			toks[i], lses[i], errs[i] = 0, 0, ErrNoToken
			continue
		}
		if n := marksFor(len(e)); cap(b.marks) < n {
			b.marks = make([]float64, n)
		} else {
			b.marks = b.marks[:n]
		}
		ok, es, marks, mxs = append(ok, i), append(es, e), append(marks, b.marks), append(mxs, mx)
	}
	sums := make([]float64, len(ok))
	markedSums(es, marks, sums)
	for k, i := range ok {
		toks[i] = firstAbove(es[k], marks[k], rs[i].Float64()*sums[k])
		lses[i], errs[i] = mxs[k]+math.Log(sums[k]), nil
	}
}
