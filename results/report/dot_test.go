package report

import (
	"math"
	"math/rand/v2"
	"testing"
)

// dotMany sets sums[k] = dot(w, cols[k]) for every column: dotBatch for
// one weight vector.
func dotMany(w []float64, cols [][]float64, sums []float64) {
	dotBatch([][]float64{w}, cols, sums)
}

// TestDotManyEqualsDot: the eight-column kernel (where the CPU has AVX)
// and the four-column one give dot's sums bit for bit for lengths around
// the block size and any number of columns.
func TestDotManyEqualsDot(t *testing.T) {
	wide := wideKernel
	defer func() { wideKernel = wide }()
	for _, wideKernel = range []bool{wide, false} {
		dotManyEqualsDot(t)
	}
}

func dotManyEqualsDot(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{0, 1, 3, 4, 5, 7, 8, 9, 63, 1001} {
		for ncols := 1; ncols <= 17; ncols++ {
			w := make([]float64, n)
			for i := range w {
				w[i] = float64(r.IntN(5))
			}
			cols := make([][]float64, ncols)
			for k := range cols {
				cols[k] = make([]float64, n)
				for i := range cols[k] {
					cols[k][i] = (r.Float64() - 0.3) * math.Pow(10, float64(r.IntN(12)-6))
				}
			}
			sums := make([]float64, ncols)
			dotMany(w, cols, sums)
			for k := range cols {
				if want := dot(w, cols[k]); math.Float64bits(sums[k]) != math.Float64bits(want) {
					t.Fatalf("wide %t, n=%d cols=%d: column %d = %v, dot = %v", wideKernel, n, ncols, k, sums[k], want)
				}
			}
		}
	}
}

// TestBootstrapKernelUnchanged: Bootstrap with the kernel equals Bootstrap
// with plain dot on a matrix with complete and incomplete columns.
func TestBootstrapKernelUnchanged(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	rows := make([][]float64, 1003)
	for i := range rows {
		rows[i] = make([]float64, 7)
		for c := range rows[i] {
			rows[i][c] = 100 * r.Float64()
			if c == 5 && i%9 == 0 {
				rows[i][c] = math.NaN()
			}
		}
	}
	lo, hi := Bootstrap(rows, 7, 300, 9, 0.95)
	laneKernel = false
	defer func() { laneKernel = true }()
	lo0, hi0 := Bootstrap(rows, 7, 300, 9, 0.95)
	for c := range lo {
		if math.Float64bits(lo[c]) != math.Float64bits(lo0[c]) || math.Float64bits(hi[c]) != math.Float64bits(hi0[c]) {
			t.Errorf("column %d: [%v, %v] with the kernel, [%v, %v] without", c, lo[c], hi[c], lo0[c], hi0[c])
		}
	}
}
