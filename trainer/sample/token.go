package sample

import (
	"math"
	"math/rand/v2"

	"mascot.dev/mascot/trainer/qwen3"
)

// ChooseToken is Choose for an engine that reports the drawn token's
// log-prob only, not the whole distribution: the same token and log-prob
// from the same draws of r. Sampling over every token (no top-k, no
// top-p, a positive temperature), the common case, takes the
// probabilities from qwen3's softmax and computes one log-prob instead
// of the vocabulary's; everything else is Choose. It is ChooseTokens for
// one sequence.
func ChooseToken(logits []float32, p Params, r *rand.Rand) (int, float32, error) {
	var tok [1]int
	var lp [1]float32
	var err [1]error
	ChooseTokens([][]float32{logits}, []Params{p}, []*rand.Rand{r}, tok[:], lp[:], err[:])
	return tok[0], lp[0], err[0]
}

// ChooseTokens is ChooseToken for several sequences, each with its own
// logits, parameters and random stream: toks[i], lps[i] and errs[i] are
// what ChooseToken(logits[i], ps[i], rs[i]) returns alone, bit for bit. The
// sequences sampled over every token have their probabilities' two sums
// (the softmax's and the draw's total, each a chain of additions in index
// order) run together, four sequences per loop (qwen3.SumsInOrder), where
// one at a time they waited on the adder's latency.
func ChooseTokens(logits [][]float32, ps []Params, rs []*rand.Rand, toks []int, lps []float32, errs []error) {
	var fast []int
	for i := range logits {
		p := ps[i]
		if p.Temperature == 0 || (p.TopK > 0 && p.TopK < len(logits[i])) || (p.TopP > 0 && p.TopP < 1) {
			toks[i], lps[i], _, errs[i] = Choose(logits[i], p, rs[i])
			continue
		}
		fast = append(fast, i)
	}
	temp := func(i int) float32 {
		if t := ps[i].Temperature; t > 0 {
			return t
		}
		return 1 // as LogSoftmaxProbs treats it
	}
	var ok []int
	var es [][]float64
	var mxs []float64
	for _, i := range fast {
		sp := scratch.Get().(*[]float64)
		e, mx, good := qwen3.SoftmaxExps(logits[i], temp(i), *sp)
		*sp = e
		defer scratch.Put(sp) // es[k] is in use until the draws below
		if !good {
			toks[i], lps[i], errs[i] = 0, 0, ErrNoToken
			continue
		}
		ok, es, mxs = append(ok, i), append(es, e), append(mxs, mx)
	}
	sums, totals := make([]float64, len(ok)), make([]float64, len(ok))
	qwen3.SumsInOrder(es, sums)
	qwen3.Normalise(es, sums, totals)
	for k, i := range ok {
		t := temp(i)
		lse := mxs[k] + math.Log(sums[k])
		tok := drawFrom(es[k], totals[k], rs[i])
		toks[i], lps[i], errs[i] = tok, float32(float64(logits[i][tok]/t)-lse), nil
	}
}
