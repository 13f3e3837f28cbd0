package sample

import (
	"math"
	"math/rand/v2"
	"slices"

	"mascot.dev/mascot/trainer/qwen3"
)

// Choose is one sampling step, for engines that interleave the steps of
// many requests: temperature 0 is argmax, otherwise top-k, then top-p over
// the renormalised survivors, then one draw from r. It returns the token,
// its log-prob under the temperature-scaled distribution (T = 1 when
// greedy) and that whole distribution (for top log-probs).
//
// Its cost is a few passes over the vocabulary, whatever the settings:
// the vocabulary is exponentiated once; top-k selects the k most likely
// tokens without sorting the vocabulary; top-p alone sorts only the
// tokens above a threshold that holds enough mass. Ties go to the lower
// token id, as a stable sort by probability would. Over every token (no
// top-k, no top-p) the draw is ChooseToken's (drawEvery), made on the
// exponentials without normalising them.
func Choose(logits []float32, p Params, r *rand.Rand) (int, float32, []float32, error) {
	t := p.Temperature
	if t == 0 {
		best := -1
		for i, v := range logits {
			if !math.IsInf(float64(v), -1) && !math.IsNaN(float64(v)) && (best < 0 || v > logits[best]) {
				best = i
			}
		}
		if best < 0 {
			return 0, 0, nil, ErrNoToken
		}
		lp := qwen3.LogSoftmax(logits, 1)
		return best, lp[best], lp, nil
	}
	if !truncates(p, len(logits)) {
		return chooseAny(logits, temperature(p), r)
	}
	b := scratch.Get().(*buffers)
	defer scratch.Put(b)
	lp, e := qwen3.LogSoftmaxProbs(logits, t, b.e) // e[i] = p(i)
	b.e = e[:cap(e)]
	if math.IsNaN(float64(lp[0])) { // a NaN or +Inf logit, or no finite one
		return 0, 0, nil, ErrNoToken
	}
	idx := make([]int, 0, len(lp))
	for i, v := range lp {
		if !math.IsInf(float64(v), -1) {
			idx = append(idx, i)
		}
	}
	idx = truncate(lp, e, idx, p)
	var total float64
	for _, i := range idx {
		total += e[i]
	}
	// The draw's one definition (draw.go): the first candidate whose
	// running sum, in the candidates' order, exceeds u.
	u := r.Float64() * total
	var sum float64
	for _, i := range idx {
		if sum += e[i]; sum > u {
			return i, lp[i], lp, nil
		}
	}
	last := idx[len(idx)-1]
	return last, lp[last], lp, nil
}

// chooseAny is Choose over every token at temperature t (positive): the
// token drawEvery draws, and the log-probs of the whole vocabulary from
// the same lse.
func chooseAny(logits []float32, t float32, r *rand.Rand) (int, float32, []float32, error) {
	var tok [1]int
	var lse [1]float64
	var err [1]error
	drawEvery([][]float32{logits}, []float32{t}, []*rand.Rand{r}, tok[:], lse[:], err[:])
	if err[0] != nil {
		return 0, 0, nil, err[0]
	}
	lp := make([]float32, len(logits))
	for i, v := range logits {
		lp[i] = logProb(v, t, lse[0])
	}
	return tok[0], lp[tok[0]], lp, nil
}

// truncate applies top-k, then top-p, to the candidates idx (ascending
// ids) and returns the survivors, most likely first when either applies.
func truncate(lp []float32, e []float64, idx []int, p Params) []int {
	topP := p.TopP > 0 && p.TopP < 1
	switch {
	case p.TopK > 0 && p.TopK < len(idx):
		idx = mostLikely(lp, idx, p.TopK)
		if topP {
			idx = nucleus(e, idx, p.TopP)
		}
	case topP:
		idx = nucleusOfAll(lp, e, idx, p.TopP)
	}
	return idx
}

// mostLikely returns the k most likely of idx (ascending ids), most likely
// first, ties to the lower id.
func mostLikely(lp []float32, idx []int, k int) []int {
	top := make([]int, 0, k)
	for _, i := range idx {
		v := lp[i]
		if len(top) == k && !(v > lp[top[k-1]]) {
			continue
		}
		if len(top) < k {
			top = append(top, i)
		} else {
			top[k-1] = i
		}
		for j := len(top) - 1; j > 0 && lp[top[j]] > lp[top[j-1]]; j-- {
			top[j], top[j-1] = top[j-1], top[j]
		}
	}
	return top
}

// nucleus keeps the shortest most-likely-first prefix of sorted whose mass
// reaches topP of the mass of all of sorted (at least one token), as HF's
// and vLLM's top-p warpers do after top-k.
func nucleus(e []float64, sorted []int, topP float32) []int {
	var kept, mass float64
	for _, i := range sorted {
		kept += e[i]
	}
	for n, i := range sorted {
		mass += e[i]
		if mass >= float64(topP)*kept {
			return sorted[:n+1]
		}
	}
	return sorted
}

// nucleusOfAll is nucleus over every candidate without sorting them all:
// only the candidates at or above a threshold are sorted, the threshold
// halving until they hold the nucleus. Every candidate below it is less
// likely than every one above, so the sorted prefix is the same.
func nucleusOfAll(lp []float32, e []float64, idx []int, topP float32) []int {
	var kept float64
	for _, i := range idx {
		kept += e[i]
	}
	top := 0.0
	for _, i := range idx {
		top = max(top, e[i])
	}
	for tau := top / 2; ; tau /= 2 {
		var above []int
		mass := 0.0
		for _, i := range idx {
			if e[i] >= tau {
				above = append(above, i)
				mass += e[i]
			}
		}
		if mass < float64(topP)*kept && len(above) < len(idx) && tau > 0 {
			continue
		}
		slices.SortStableFunc(above, func(a, b int) int {
			switch {
			case lp[a] > lp[b]:
				return -1
			case lp[a] < lp[b]:
				return 1
			}
			return 0
		})
		var run float64
		for n, i := range above {
			run += e[i]
			if run >= float64(topP)*kept {
				return above[:n+1]
			}
		}
		if len(above) == len(idx) || tau == 0 {
			return above
		}
	}
}
