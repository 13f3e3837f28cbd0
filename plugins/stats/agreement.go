package stats

import (
	"math"
	"sort"
)

// Distance is a Krippendorff's alpha metric.
type Distance int

const (
	// Interval uses the squared difference (a-b)^2.
	Interval Distance = iota
	// Ordinal uses rank distances from the marginal counts of the values.
	Ordinal
)

// KrippendorffAlpha returns alpha = 1 - Do/De for units, each holding the
// values the coders (judges) gave it; missing values are simply absent.
// Units with fewer than two values are not pairable and are ignored. n is
// the number of pairable values. ok is false when alpha is undefined (fewer
// than two pairable values, or no variation at all).
func KrippendorffAlpha(units [][]float64, d Distance) (alpha float64, n int, ok bool) {
	var vals []float64
	var pairable [][]float64
	for _, u := range units {
		if len(u) >= 2 {
			pairable = append(pairable, u)
			vals = append(vals, u...)
		}
	}
	n = len(vals)
	if n < 2 {
		return math.NaN(), n, false
	}
	delta := intervalDelta
	if d == Ordinal {
		delta = ordinalDelta(vals)
	}
	do := 0.0
	for _, u := range pairable {
		s := 0.0
		for i := range u {
			for j := range u {
				if i != j {
					s += delta(u[i], u[j])
				}
			}
		}
		do += s / float64(len(u)-1)
	}
	do /= float64(n)
	de := 0.0
	for i := range vals {
		for j := range vals {
			if i != j {
				de += delta(vals[i], vals[j])
			}
		}
	}
	de /= float64(n * (n - 1))
	if de == 0 {
		return math.NaN(), n, false
	}
	return 1 - do/de, n, true
}

func intervalDelta(a, b float64) float64 { return (a - b) * (a - b) }

// ordinalDelta builds δ(c,k) = (Σ_{g between c and k} n_g - (n_c+n_k)/2)^2
// from the marginal counts n_g of the pairable values.
func ordinalDelta(vals []float64) func(a, b float64) float64 {
	count := map[float64]float64{}
	for _, v := range vals {
		count[v]++
	}
	levels := make([]float64, 0, len(count))
	for v := range count {
		levels = append(levels, v)
	}
	sort.Float64s(levels)
	cum := map[float64]float64{} // sum of counts of levels <= v
	run := 0.0
	for _, v := range levels {
		run += count[v]
		cum[v] = run
	}
	return func(a, b float64) float64 {
		if a == b {
			return 0
		}
		if a > b {
			a, b = b, a
		}
		between := cum[b] - cum[a] + count[a] // levels a..b inclusive
		x := between - (count[a]+count[b])/2
		return x * x
	}
}

// CohenKappa is the unweighted kappa of two raters over the same items
// (values compared for equality). ok is false when the lengths differ, no
// items are given, or chance agreement is 1.
func CohenKappa(a, b []float64) (kappa float64, ok bool) {
	if len(a) != len(b) || len(a) == 0 {
		return math.NaN(), false
	}
	n := float64(len(a))
	pa, pb := map[float64]float64{}, map[float64]float64{}
	agree := 0.0
	for i := range a {
		pa[a[i]] += 1 / n
		pb[b[i]] += 1 / n
		if a[i] == b[i] {
			agree++
		}
	}
	po := agree / n
	pe := 0.0
	for k, p := range pa {
		pe += p * pb[k]
	}
	if pe >= 1 {
		return math.NaN(), false
	}
	return (po - pe) / (1 - pe), true
}
