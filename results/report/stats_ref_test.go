package report

import (
	"math"
	"math/rand/v2"
	"sort"
)

// refBootstrapStream is BootstrapStream as it was before its quantiles
// went through selection: the reference it must equal bit for bit.
func refBootstrapStream(rows [][]float64, cols, resamples int, seed, stream uint64, confidence float64) (lo, hi []float64) {
	n := len(rows)
	lo, hi = make([]float64, cols), make([]float64, cols)
	for c := range lo {
		lo[c], hi[c] = math.NaN(), math.NaN()
	}
	if n == 0 || resamples <= 0 || cols == 0 {
		return lo, hi
	}
	colMajor := make([][]float64, cols)
	complete := make([]bool, cols)
	for c := range colMajor {
		col := make([]float64, n)
		complete[c] = true
		for i, r := range rows {
			col[i] = r[c]
			if math.IsNaN(col[i]) {
				complete[c] = false
			}
		}
		colMajor[c] = col
	}
	means := make([][]float64, cols)
	for c := range means {
		means[c] = make([]float64, 0, resamples)
	}
	var full [][]float64 // the complete columns, for dotMany
	var fullIdx []int
	for c, col := range colMajor {
		if complete[c] {
			full, fullIdx = append(full, col), append(fullIdx, c)
		}
	}
	sums := make([]float64, len(full))
	counts := make([]float64, n)
	pcg := rand.NewPCG(seed, stream)
	un := uint64(n)
	const low = 0xffffffff
	var buf uint64
	have := false
	for range resamples {
		clear(counts)
		k := 0
		if have {
			counts[((buf>>32)*un)>>32]++
			have, k = false, 1
		}
		for ; k+1 < n; k += 2 {
			u := pcg.Uint64()
			counts[((u&low)*un)>>32]++
			counts[((u>>32)*un)>>32]++
		}
		if k < n {
			buf, have = pcg.Uint64(), true
			counts[((buf&low)*un)>>32]++
		}
		dotMany(counts, full, sums)
		for k, c := range fullIdx {
			means[c] = append(means[c], sums[k]/float64(n))
		}
		for c, col := range colMajor {
			if complete[c] {
				continue
			}
			var sum, cnt float64
			for i, w := range counts {
				if v := col[i]; w != 0 && v == v {
					sum += w * v
					cnt += w
				}
			}
			if cnt > 0 {
				means[c] = append(means[c], sum/cnt)
			}
		}
	}
	a := (1 - confidence) / 2
	for c, m := range means {
		if len(m) == 0 {
			continue
		}
		sort.Float64s(m)
		lo[c], hi[c] = Quantile(m, a), Quantile(m, 1-a)
	}
	return lo, hi
}
