package pairs

import (
	"math"
	"math/big"
)

// exact reads a stored score (or the margin) on the judge's own scale: the
// simplest fraction whose nearest float64 is v, found among the continued
// fraction convergents of v. Integers and fixed decimals come back exactly
// (4 → 4, 3.4 → 17/5, 0.5 → 1/2), and so do block or judge means computed
// with one division (3.6666666666666665 → 11/3); anything else comes back
// as the float's own exact value, the last convergent.
func exact(v float64) *big.Rat {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return new(big.Rat)
	}
	x := new(big.Rat).SetFloat64(v)
	num, den := new(big.Int).Set(x.Num()), new(big.Int).Set(x.Denom())
	h1, h2 := big.NewInt(1), big.NewInt(0) // numerators of the last two convergents
	k1, k2 := big.NewInt(0), big.NewInt(1) // their denominators
	var a, r big.Int
	for {
		a.DivMod(num, den, &r) // Euclidean: a = floor(num/den) since den > 0
		h := new(big.Int).Add(new(big.Int).Mul(&a, h1), h2)
		k := new(big.Int).Add(new(big.Int).Mul(&a, k1), k2)
		c := new(big.Rat).SetFrac(h, k)
		if f, _ := c.Float64(); f == v || r.Sign() == 0 {
			return c
		}
		h1, h2, k1, k2 = h, h1, k, k1
		num, den = den, new(big.Int).Set(&r)
	}
}

// meanOfMeans accumulates the judge rows of one item into its score: the
// mean over criteria of each criterion's mean over its rows, in exact
// arithmetic.
type meanOfMeans struct {
	crit     string
	sum      *big.Rat // of the current criterion's rows
	n        int64
	sumMeans *big.Rat // of the finished criteria's means
	criteria int64
}

func newMeanOfMeans() *meanOfMeans {
	return &meanOfMeans{sum: new(big.Rat), sumMeans: new(big.Rat)}
}

// add takes one row; rows must come grouped by criterion.
func (m *meanOfMeans) add(criterion string, score float64) {
	if m.n > 0 && criterion != m.crit {
		m.closeCriterion()
	}
	m.crit = criterion
	m.sum.Add(m.sum, exact(score))
	m.n++
}

func (m *meanOfMeans) closeCriterion() {
	m.sumMeans.Add(m.sumMeans, new(big.Rat).Quo(m.sum, new(big.Rat).SetInt64(m.n)))
	m.criteria++
	m.sum, m.n = new(big.Rat), 0
}

// score is the mean of the criterion means (0 without rows); call it once,
// after the last add.
func (m *meanOfMeans) score() *big.Rat {
	if m.n > 0 {
		m.closeCriterion()
	}
	if m.criteria == 0 {
		return new(big.Rat)
	}
	return new(big.Rat).Quo(m.sumMeans, new(big.Rat).SetInt64(m.criteria))
}
