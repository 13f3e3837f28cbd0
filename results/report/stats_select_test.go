package report

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestBootstrapEqualsReference: the bootstrap with integer counts and
// selected quantiles gives the bounds the one with float counts and
// sorted means gave, bit for bit: odd and even sizes, missing values,
// ties, one row, several confidence levels.
func TestBootstrapEqualsReference(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	for _, n := range []int{1, 2, 3, 17, 100, 833} {
		for _, cols := range []int{1, 3, 9} {
			rows := make([][]float64, n)
			for i := range rows {
				rows[i] = make([]float64, cols)
				for c := range rows[i] {
					switch {
					case c == 1 && r.IntN(4) == 0:
						rows[i][c] = math.NaN()
					case c == 2:
						rows[i][c] = float64(r.IntN(3)) * 25 // many ties
					default:
						rows[i][c] = r.NormFloat64()*30 + 50
					}
				}
			}
			for _, conf := range []float64{0.95, 0.9, 0.5} {
				for _, B := range []int{1, 2, 10, 333} {
					seed, stream := r.Uint64(), r.Uint64()
					lo, hi := BootstrapStream(rows, cols, B, seed, stream, conf)
					wlo, whi := refBootstrapStream(rows, cols, B, seed, stream, conf)
					for c := range lo {
						if math.Float64bits(lo[c]) != math.Float64bits(wlo[c]) ||
							math.Float64bits(hi[c]) != math.Float64bits(whi[c]) {
							t.Fatalf("n %d cols %d conf %v B %d column %d: [%v, %v], want [%v, %v]",
								n, cols, conf, B, c, lo[c], hi[c], wlo[c], whi[c])
						}
					}
				}
			}
		}
	}
}

// TestSelectKth: selection puts sorting's k-th value at k.
func TestSelectKth(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 500 {
		n := 1 + r.IntN(60)
		m := make([]float64, n)
		for i := range m {
			m[i] = float64(r.IntN(9)) - 4 // ties and signs
		}
		sorted := slices.Sorted(slices.Values(m))
		k := r.IntN(n)
		if got := selectKth(m, k); got != sorted[k] {
			t.Fatalf("k=%d of %v: %v, want %v", k, sorted, got, sorted[k])
		}
	}
}
