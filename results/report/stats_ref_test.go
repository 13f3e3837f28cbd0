package report

import (
	"math"
	"sort"
)

// refBootstrapStream is BootstrapStream as it was before its quantiles
// went through selection (the same draws, each column's means sorted):
// the reference it must equal bit for bit.
func refBootstrapStream(rows [][]float64, cols, resamples int, seed, stream uint64, confidence float64) (lo, hi []float64) {
	lo, hi = make([]float64, cols), make([]float64, cols)
	for c := range lo {
		lo[c], hi[c] = math.NaN(), math.NaN()
	}
	a := (1 - confidence) / 2
	for c, m := range bootstrapMeans(rows, cols, resamples, seed, stream) {
		if len(m) == 0 {
			continue
		}
		sort.Float64s(m)
		lo[c], hi[c] = Quantile(m, a), Quantile(m, 1-a)
	}
	return lo, hi
}
