package report

import (
	"math"
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
// from its high 32 bits (carried over to the next resample when n is odd),
// as idx = (h · n) >> 32 (n < 2³²). It returns the lower and upper bounds
// per column (NaN where a column has no values).
//
// Each resample counts how often every row was drawn, then sums
// count × value column by column: sequential memory access instead of
// random row reads.
func Bootstrap(rows [][]float64, cols, resamples int, seed uint64, confidence float64) (lo, hi []float64) {
	return BootstrapStream(rows, cols, resamples, seed, 0, confidence)
}

// BootstrapStream is Bootstrap drawing from PCG(seed, stream); reports
// pass a stream derived from the rows' keys (see drawStream).
//
// Each bound is found by selecting the two order statistics it
// interpolates instead of sorting the resample means: the same numbers,
// bit for bit, without a sort per column.
func BootstrapStream(rows [][]float64, cols, resamples int, seed, stream uint64, confidence float64) (lo, hi []float64) {
	lo, hi = make([]float64, cols), make([]float64, cols)
	for c := range lo {
		lo[c], hi[c] = math.NaN(), math.NaN()
	}
	a := (1 - confidence) / 2
	for c, m := range bootstrapMeans(rows, cols, resamples, seed, stream) {
		if len(m) == 0 {
			continue
		}
		lo[c], hi[c] = quantiles(m, a, 1-a)
	}
	return lo, hi
}

// bootstrapMeans returns, per column, the means of the resamples that
// hold a value of it, in the order they were drawn (BootstrapStream's
// draws; nil columns when there is nothing to resample).
func bootstrapMeans(rows [][]float64, cols, resamples int, seed, stream uint64) [][]float64 {
	n := len(rows)
	means := make([][]float64, cols)
	if n == 0 || resamples <= 0 || cols == 0 {
		return means
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
	for c := range means {
		means[c] = make([]float64, 0, resamples)
	}
	var full [][]float64 // the complete columns, for dotBatch
	var fullIdx []int
	for c, col := range colMajor {
		if complete[c] {
			full, fullIdx = append(full, col), append(fullIdx, c)
		}
	}
	// Resamples go in batches: every resample's counts, then the products
	// of the batch's counts with the columns in one pass (dotBatch).
	batch := min(drawBatch, resamples)
	sums := make([]float64, batch*len(full))
	flat := make([]float64, batch*n)
	batchCounts := make([][]float64, batch) // a resample's counts each
	for b := range batchCounts {
		batchCounts[b] = flat[b*n : (b+1)*n : (b+1)*n]
	}
	pcg := pcgLanes{hi: seed, lo: stream} // rand.NewPCG(seed, stream)'s outputs
	words := make([]uint64, n/2)
	un := uint64(n)
	const low = 0xffffffff
	var buf uint64
	have := false
	for r0 := 0; r0 < resamples; r0 += batch {
		ws := batchCounts[:min(batch, resamples-r0)]
		clear(flat)
		for _, counts := range ws {
			k := 0
			if have {
				counts[((buf>>32)*un)>>32]++
				have, k = false, 1
			}
			// The outputs first, then the counts: drawn one at a time,
			// each count waited on the generator.
			w := words[:(n-k)/2]
			pcg.fill(w)
			for _, u := range w {
				counts[((u&low)*un)>>32]++
				counts[((u>>32)*un)>>32]++
			}
			k += 2 * len(w)
			if k < n {
				buf, have = pcg.Uint64(), true
				counts[((buf&low)*un)>>32]++
			}
		}
		dotBatch(ws, full, sums)
		for b, counts := range ws {
			for k, c := range fullIdx {
				means[c] = append(means[c], sums[b*len(full)+k]/float64(n))
			}
			for c, col := range colMajor {
				if complete[c] {
					continue
				}
				if m, ok := countedMean(counts, col); ok {
					means[c] = append(means[c], m)
				}
			}
		}
	}
	return means
}

// countedMean is the mean of a column with missing values (NaN) over a
// resample: each row's value weighted by how often it was drawn, the
// missing ones left out; false when the resample drew none of its values.
func countedMean(counts, col []float64) (float64, bool) {
	var sum, cnt float64
	for i, w := range counts {
		if v := col[i]; w != 0 && v == v {
			sum += w * v
			cnt += w
		}
	}
	return sum / cnt, cnt > 0
}

// drawBatch is how many resamples bootstrapMeans draws before taking their
// products with the columns.
const drawBatch = 8

// quantiles returns Quantile(sorted m, p) for p = a and b, reordering m.
// Each needs only the order statistics at ⌊h⌋ and ⌊h⌋+1 (h = (len−1)p),
// which selection finds without sorting; m with a NaN is sorted, as
// before.
func quantiles(m []float64, a, b float64) (qa, qb float64) {
	for _, v := range m {
		if v != v {
			sort.Float64s(m)
			return Quantile(m, a), Quantile(m, b)
		}
	}
	q := func(p float64) float64 {
		h := float64(len(m)-1) * p
		i := int(math.Floor(h))
		if i >= len(m)-1 {
			return selectKth(m, len(m)-1)
		}
		x := selectKth(m, i)
		next := m[i+1]
		for _, v := range m[i+2:] { // the smallest right of the i-th is the (i+1)-th
			next = min(next, v)
		}
		return x + (h-float64(i))*(next-x)
	}
	return q(a), q(b)
}

// selectKth reorders m so that m[k] is the value sorting would put there,
// no value left of it greater and none right of it smaller, and returns
// it (Hoare's selection with a median-of-three pivot).
func selectKth(m []float64, k int) float64 {
	lo, hi := 0, len(m)-1
	for lo < hi {
		mid := lo + (hi-lo)/2
		if m[mid] < m[lo] {
			m[mid], m[lo] = m[lo], m[mid]
		}
		if m[hi] < m[lo] {
			m[hi], m[lo] = m[lo], m[hi]
		}
		if m[hi] < m[mid] {
			m[hi], m[mid] = m[mid], m[hi]
		}
		pivot := m[mid]
		i, j := lo, hi
		for i <= j {
			for m[i] < pivot {
				i++
			}
			for pivot < m[j] {
				j--
			}
			if i <= j {
				m[i], m[j] = m[j], m[i]
				i++
				j--
			}
		}
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return m[k]
		}
	}
	return m[k]
}

// dot is Σ w[i]·x[i] with four accumulators.
func dot(w, x []float64) float64 {
	x = x[:len(w)]
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+3 < len(w); i += 4 {
		s0 += w[i] * x[i]
		s1 += w[i+1] * x[i+1]
		s2 += w[i+2] * x[i+2]
		s3 += w[i+3] * x[i+3]
	}
	for ; i < len(w); i++ {
		s0 += w[i] * x[i]
	}
	return (s0 + s1) + (s2 + s3)
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
