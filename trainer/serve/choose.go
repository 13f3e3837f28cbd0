package serve

import (
	"math"
	"math/rand/v2"
	"sort"

	"mascot.dev/mascot/trainer/qwen3"
	"mascot.dev/mascot/trainer/sample"
)

// choose picks the next token from logits exactly as trainer/sample does
// (which exposes whole-sequence calls only, while the engine interleaves
// the steps of many requests): temperature 0 is argmax, otherwise top-k,
// then top-p over the renormalised survivors, then one draw from r. It
// returns the token, its log-prob under the temperature-scaled
// distribution (T = 1 when greedy) and that distribution, for top
// log-probs.
func choose(logits []float32, p sample.Params, r *rand.Rand) (int, float32, []float32, error) {
	t := p.Temperature
	if t == 0 {
		best := -1
		for i, v := range logits {
			if !math.IsInf(float64(v), -1) && !math.IsNaN(float64(v)) && (best < 0 || v > logits[best]) {
				best = i
			}
		}
		if best < 0 {
			return 0, 0, nil, sample.ErrNoToken
		}
		lp := qwen3.LogSoftmax(logits, 1)
		return best, lp[best], lp, nil
	}
	lp := qwen3.LogSoftmax(logits, t)
	idx := make([]int, 0, len(lp))
	for i, v := range lp {
		if !math.IsInf(float64(v), -1) && !math.IsNaN(float64(v)) {
			idx = append(idx, i)
		}
	}
	if len(idx) == 0 {
		return 0, 0, nil, sample.ErrNoToken
	}
	if (p.TopK > 0 && p.TopK < len(idx)) || (p.TopP > 0 && p.TopP < 1) {
		sort.SliceStable(idx, func(a, b int) bool { return lp[idx[a]] > lp[idx[b]] })
		if p.TopK > 0 && p.TopK < len(idx) {
			idx = idx[:p.TopK]
		}
		if p.TopP > 0 && p.TopP < 1 {
			var kept, mass float64
			for _, i := range idx {
				kept += math.Exp(float64(lp[i]))
			}
			for n, i := range idx {
				mass += math.Exp(float64(lp[i]))
				if mass >= float64(p.TopP)*kept {
					idx = idx[:n+1]
					break
				}
			}
		}
	}
	var total float64
	for _, i := range idx {
		total += math.Exp(float64(lp[i]))
	}
	u := r.Float64() * total
	for _, i := range idx {
		u -= math.Exp(float64(lp[i]))
		if u < 0 {
			return i, lp[i], lp, nil
		}
	}
	last := idx[len(idx)-1]
	return last, lp[last], lp, nil
}

// topK returns the k most likely ids of lp, most likely first.
func topK(lp []float32, k int) []int {
	if k <= 0 {
		return nil
	}
	var ids []int
	for i, v := range lp {
		if math.IsInf(float64(v), -1) || math.IsNaN(float64(v)) {
			continue
		}
		if len(ids) < k {
			ids = append(ids, i)
		} else if v > lp[ids[k-1]] {
			ids[k-1] = i
		} else {
			continue
		}
		for j := len(ids) - 1; j > 0 && lp[ids[j]] > lp[ids[j-1]]; j-- {
			ids[j], ids[j-1] = ids[j-1], ids[j]
		}
	}
	return ids
}
