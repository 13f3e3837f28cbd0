package stats

import (
	"math"
	"sort"
)

// KrippendorffAlphaInterval is KrippendorffAlpha with the interval
// distance, in linear time: Σ_{i≠j} (x_i − x_j)² over m values equals
// 2m·Σ (x_i − x̄)², so the observed disagreement of a unit and the expected
// disagreement over every pairable value come from sums of squared
// deviations instead of all pairs (a report's agreement over a whole run
// holds millions of values, where the pairwise form would take days).
// Units with fewer than two values are not pairable; n is the number of
// pairable values; ok is false when alpha is undefined (fewer than two
// pairable values, or no variation at all). The result equals
// KrippendorffAlpha(units, Interval) up to rounding.
func KrippendorffAlphaInterval(units [][]float64) (alpha float64, n int, ok bool) {
	var total, mean float64
	for _, u := range units {
		if len(u) >= 2 {
			for _, v := range u {
				total += v
			}
			n += len(u)
		}
	}
	if n < 2 {
		return math.NaN(), n, false
	}
	mean = total / float64(n)
	var do, ssAll float64
	for _, u := range units {
		if len(u) < 2 {
			continue
		}
		m := float64(len(u))
		var s float64
		for _, v := range u {
			s += v
		}
		um := s / m
		var ss float64
		for _, v := range u {
			ss += (v - um) * (v - um)
			ssAll += (v - mean) * (v - mean)
		}
		do += 2 * m * ss / (m - 1)
	}
	do /= float64(n)
	de := 2 * float64(n) * ssAll / (float64(n) * float64(n-1))
	if de == 0 {
		return math.NaN(), n, false
	}
	return 1 - do/de, n, true
}

// Spearman is Spearman's rank correlation of paired values: the Pearson
// correlation of their ranks, tied values sharing their mean rank. ok is
// false when the lengths differ, fewer than two pairs are given, or either
// side has no variation.
func Spearman(a, b []float64) (rho float64, ok bool) {
	if len(a) != len(b) || len(a) < 2 {
		return math.NaN(), false
	}
	ra, rb := ranks(a), ranks(b)
	return pearson(ra, rb)
}

// ranks returns the 1-based ranks of xs, ties at their mean rank.
func ranks(xs []float64) []float64 {
	idx := make([]int, len(xs))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(p, q int) bool { return xs[idx[p]] < xs[idx[q]] })
	out := make([]float64, len(xs))
	for i := 0; i < len(idx); {
		j := i
		for j+1 < len(idx) && xs[idx[j+1]] == xs[idx[i]] {
			j++
		}
		r := float64(i+j)/2 + 1
		for k := i; k <= j; k++ {
			out[idx[k]] = r
		}
		i = j + 1
	}
	return out
}

func pearson(a, b []float64) (float64, bool) {
	n := float64(len(a))
	var ma, mb float64
	for i := range a {
		ma += a[i]
		mb += b[i]
	}
	ma, mb = ma/n, mb/n
	var sab, saa, sbb float64
	for i := range a {
		da, db := a[i]-ma, b[i]-mb
		sab += da * db
		saa += da * da
		sbb += db * db
	}
	if saa == 0 || sbb == 0 {
		return math.NaN(), false
	}
	return sab / math.Sqrt(saa*sbb), true
}
