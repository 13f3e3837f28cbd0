package report

import (
	"math"
	"math/rand/v2"
	"sort"
)

// Stat summarises one cell.
type Stat struct {
	N      int     `json:"n"`
	Mean   float64 `json:"mean"`
	Std    float64 `json:"std"`
	CILow  float64 `json:"ci_low"`
	CIHigh float64 `json:"ci_high"`
}

// MeanStd returns the count, mean and sample standard deviation (n−1) of
// the non-NaN values.
func MeanStd(xs []float64) (n int, mean, std float64) {
	var sum float64
	for _, x := range xs {
		if !math.IsNaN(x) {
			n++
			sum += x
		}
	}
	if n == 0 {
		return 0, math.NaN(), math.NaN()
	}
	mean = sum / float64(n)
	if n < 2 {
		return n, mean, 0
	}
	var ss float64
	for _, x := range xs {
		if !math.IsNaN(x) {
			d := x - mean
			ss += d * d
		}
	}
	return n, mean, math.Sqrt(ss / float64(n-1))
}

// Quantile returns the p-quantile of sorted xs by linear interpolation
// between order statistics (type 7).
func Quantile(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return math.NaN()
	}
	h := float64(len(sorted)-1) * p
	lo := int(math.Floor(h))
	if lo >= len(sorted)-1 {
		return sorted[len(sorted)-1]
	}
	return sorted[lo] + (h-float64(lo))*(sorted[lo+1]-sorted[lo])
}

// Bootstrap computes percentile-bootstrap intervals for the means of the
// columns of a row-major matrix (rows = samples, cols = values; NaN =
// missing), resampling rows. Indices come from one PCG(seed, 0) stream:
// each 64-bit output u gives two indices, first from its low 32 bits, then
// from its high 32 bits, as idx = (h · n) >> 32 (n < 2³²). It returns the
// lower and upper bounds per column (NaN where a column has no values).
func Bootstrap(rows [][]float64, cols, resamples int, seed uint64, confidence float64) (lo, hi []float64) {
	n := len(rows)
	lo, hi = make([]float64, cols), make([]float64, cols)
	for c := range lo {
		lo[c], hi[c] = math.NaN(), math.NaN()
	}
	if n == 0 || resamples <= 0 || cols == 0 {
		return lo, hi
	}
	flat := make([]float64, n*cols)
	complete := true
	for i, r := range rows {
		copy(flat[i*cols:(i+1)*cols], r)
		for _, v := range r[:cols] {
			if math.IsNaN(v) {
				complete = false
			}
		}
	}
	means := make([][]float64, cols)
	for c := range means {
		means[c] = make([]float64, 0, resamples)
	}
	sum := make([]float64, cols)
	cnt := make([]int, cols)
	src := indexSource{pcg: rand.NewPCG(seed, 0), n: uint64(n)}
	for range resamples {
		clear(sum)
		clear(cnt)
		if complete {
			for range n {
				i := src.next() * cols
				for c, v := range flat[i : i+cols] {
					sum[c] += v
				}
			}
			for c := range cnt {
				cnt[c] = n
			}
		} else {
			for range n {
				i := src.next() * cols
				for c, v := range flat[i : i+cols] {
					if v == v { // not NaN
						sum[c] += v
						cnt[c]++
					}
				}
			}
		}
		for c := range sum {
			if cnt[c] > 0 {
				means[c] = append(means[c], sum[c]/float64(cnt[c]))
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

// indexSource draws uniform indices in [0, n) two per PCG output.
type indexSource struct {
	pcg  *rand.PCG
	n    uint64
	buf  uint64
	have bool
}

func (s *indexSource) next() int {
	var h uint64
	if s.have {
		h, s.have = s.buf>>32, false
	} else {
		s.buf, s.have = s.pcg.Uint64(), true
		h = s.buf & 0xffffffff
	}
	return int((h * s.n) >> 32)
}

// Wilson returns the Wilson score interval for k successes in n trials at
// the normal quantile z (1.959964 for 95%).
func Wilson(k, n int, z float64) (lo, hi float64) {
	if n == 0 {
		return math.NaN(), math.NaN()
	}
	p := float64(k) / float64(n)
	nf := float64(n)
	den := 1 + z*z/nf
	mid := (p + z*z/(2*nf)) / den
	half := z * math.Sqrt(p*(1-p)/nf+z*z/(4*nf*nf)) / den
	return mid - half, mid + half
}

// zFor returns the two-sided normal quantile for a confidence level.
func zFor(confidence float64) float64 {
	// Acklam-free: the levels people use, else a bisection on erf.
	switch confidence {
	case 0.95:
		return 1.959963984540054
	case 0.90:
		return 1.6448536269514722
	case 0.99:
		return 2.5758293035489004
	}
	lo, hi := 0.0, 10.0
	for range 100 {
		m := (lo + hi) / 2
		if math.Erf(m/math.Sqrt2) < confidence {
			lo = m
		} else {
			hi = m
		}
	}
	return (lo + hi) / 2
}
