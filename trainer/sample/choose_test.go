package sample

import (
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"mascot.dev/mascot/trainer/qwen3"
)

// fullSortKeep is top-k then top-p the slow way: sort the whole vocabulary.
func fullSortKeep(lp []float32, p Params) []int {
	var idx []int
	for i, v := range lp {
		if !math.IsInf(float64(v), -1) {
			idx = append(idx, i)
		}
	}
	if !((p.TopK > 0 && p.TopK < len(idx)) || (p.TopP > 0 && p.TopP < 1)) {
		return idx
	}
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
				return idx[:n+1]
			}
		}
	}
	return idx
}

// TestTruncateKeepsWhatAFullSortKeeps: on random logits over a large
// vocabulary (with ties and masked tokens), top-k and top-p without the
// full sort keep the same tokens in the same order as sorting everything.
func TestTruncateKeepsWhatAFullSortKeeps(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	const V = 5000
	for trial := range 40 {
		lg := make([]float32, V)
		for i := range lg {
			lg[i] = float32(r.NormFloat64() * (1 + float64(trial%4)))
			if i%97 == 0 {
				lg[i] = lg[i/2] // ties
			}
			if i%211 == 0 {
				lg[i] = float32(math.Inf(-1))
			}
		}
		lp, e := qwen3.LogSoftmaxProbs(lg, 0.8, nil)
		var idx []int
		for i, v := range lp {
			if !math.IsInf(float64(v), -1) {
				idx = append(idx, i)
			}
		}
		for _, p := range []Params{{TopK: 1}, {TopK: 20}, {TopK: V - 1}, {TopP: 0.3}, {TopP: 0.8}, {TopP: 0.95},
			{TopK: 20, TopP: 0.8}, {TopK: 200, TopP: 0.5}, {TopP: 1}, {}} {
			got := truncate(lp, e, slices.Clone(idx), p)
			want := fullSortKeep(lp, p)
			if !slices.Equal(got, want) {
				t.Fatalf("trial %d %+v: kept %d tokens %v…, a full sort keeps %d %v…", trial, p, len(got), got[:min(5, len(got))], len(want), want[:min(5, len(want))])
			}
		}
	}
}
