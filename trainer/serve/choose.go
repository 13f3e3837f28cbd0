package serve

import (
	"math"
	"math/rand/v2"

	"mascot.dev/mascot/trainer/sample"
)

// choose is trainer/sample's sampling step (the engine interleaves the
// steps of many requests, so it calls the step directly).
func choose(logits []float32, p sample.Params, r *rand.Rand) (int, float32, []float32, error) {
	return sample.Choose(logits, p, r)
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
