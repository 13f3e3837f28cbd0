package report

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestPCGLanesArePCG: fill and Uint64, in any mix of lengths, give
// math/rand/v2's PCG outputs in order, from the seeds given and from the
// state where earlier calls left off.
func TestPCGLanesArePCG(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 50 {
		seed, stream := r.Uint64(), r.Uint64()
		want := rand.NewPCG(seed, stream)
		got := pcgLanes{hi: seed, lo: stream}
		for _, n := range []int{0, 1, 3, 4, 7, 8, 9, 12, 13, 31, 64, 1001, 2, 5} {
			buf := make([]uint64, n)
			got.fill(buf)
			for i, u := range buf {
				if w := want.Uint64(); u != w {
					t.Fatalf("seed %d/%d, fill(%d)[%d] = %#x, PCG gives %#x", seed, stream, n, i, u, w)
				}
			}
			if u, w := got.Uint64(), want.Uint64(); u != w {
				t.Fatalf("seed %d/%d, Uint64 after fill(%d) = %#x, PCG gives %#x", seed, stream, n, u, w)
			}
		}
	}
}

// pcgIndices draws row indices below n as the package documents: from
// PCG(seed, stream), two per output (its low 32 bits, then its high 32
// bits), each h as (h·n)>>32.
func pcgIndices(seed, stream uint64, n int) func() uint64 {
	pcg := rand.NewPCG(seed, stream)
	var halves []uint64
	return func() uint64 {
		if len(halves) == 0 {
			u := pcg.Uint64()
			halves = []uint64{u & 0xffffffff, u >> 32}
		}
		h := halves[0]
		halves = halves[1:]
		return (h * uint64(n)) >> 32
	}
}

// refBootstrapMeans is bootstrapMeans drawing one output of rand.PCG at a
// time and taking each resample's products with dot, column by column, and
// a column with missing values' mean over the rows drawn:
// the procedure the package documents, which the batched draws and the
// chunked products must give bit for bit.
func refBootstrapMeans(rows [][]float64, cols, resamples int, seed, stream uint64) [][]float64 {
	n := len(rows)
	means := make([][]float64, cols)
	if n == 0 || resamples <= 0 {
		return means
	}
	draw := pcgIndices(seed, stream, n)
	for range resamples {
		counts := make([]float64, n)
		for range n {
			counts[draw()]++
		}
		for c := range cols {
			col := make([]float64, n)
			complete := true
			for i, r := range rows {
				col[i] = r[c]
				complete = complete && !math.IsNaN(col[i])
			}
			if complete {
				means[c] = append(means[c], dot(counts, col)/float64(n))
				continue
			}
			// Its own counted mean, not the package's countedMean: the
			// reference shares no code with what it checks but dot.
			var sum, cnt float64
			for i, w := range counts {
				if !math.IsNaN(col[i]) {
					sum += w * col[i]
					cnt += w
				}
			}
			if cnt > 0 {
				means[c] = append(means[c], sum/cnt)
			}
		}
	}
	return means
}

// TestBootstrapMeansEqualReference: batched draws and chunked products
// give every resample mean of the plain procedure, bit for bit: sizes
// odd and even, below a lane, across chunks, resamples not a multiple of
// the batch, missing values, both kernels.
func TestBootstrapMeansEqualReference(t *testing.T) {
	wide := wideKernel
	defer func() { wideKernel = wide }()
	r := rand.New(rand.NewPCG(3, 9))
	for _, n := range []int{1, 2, 3, 5, 8, 511, 513, 1027, 2 * dotChunk} {
		for _, cols := range []int{1, 5, 14} {
			rows := make([][]float64, n)
			for i := range rows {
				rows[i] = make([]float64, cols)
				for c := range rows[i] {
					rows[i][c] = r.NormFloat64()*30 - 10
					if c == 1 && r.IntN(5) == 0 {
						rows[i][c] = math.NaN()
					}
				}
			}
			for _, B := range []int{1, drawBatch - 1, drawBatch + 3, 50} {
				seed, stream := r.Uint64(), r.Uint64()
				want := refBootstrapMeans(rows, cols, B, seed, stream)
				for _, wideKernel = range []bool{wide, false} {
					got := bootstrapMeans(rows, cols, B, seed, stream)
					for c := range want {
						if len(got[c]) != len(want[c]) {
							t.Fatalf("n %d cols %d B %d column %d: %d means, want %d", n, cols, B, c, len(got[c]), len(want[c]))
						}
						for i := range want[c] {
							if math.Float64bits(got[c][i]) != math.Float64bits(want[c][i]) {
								t.Fatalf("n %d cols %d B %d wide %t column %d resample %d: %v, want %v",
									n, cols, B, wideKernel, c, i, got[c][i], want[c][i])
							}
						}
					}
				}
			}
		}
	}
}
