package sample

import (
	"math"
	"math/rand/v2"
	"testing"

	"mascot.dev/mascot/trainer/qwen3"
)

// drawFrom is the draw that firstAbove replaced, kept as the reference:
// the probabilities (the exponentials times 1/sum) and their total,
// summed in index order, u = r.Float64()·total, and the weights
// subtracted from u in index order until it goes below 0.
func drawFrom(e []float64, total float64, r *rand.Rand) int {
	u := r.Float64() * total
	last := 0
	for i, v := range e {
		if v == 0 {
			continue
		}
		last = i
		if u -= v; u < 0 {
			return i
		}
	}
	return last
}

// TestDrawIsTheOldWalk draws 200,000 tokens both ways from equal streams,
// over random logits (vocabularies of 100 to 49,152 tokens, temperatures
// 0.3 to 1.5, masked runs at the ends and masked tokens inside), and
// counts the tokens that differ.
//
// The two are the same distribution and differ only where u falls
// between two roundings of one boundary: the walk's u − p[0] − … − p[i]
// against 0 and the running sum e[0] + … + e[i] against u, which part
// ways by the rounding of the chains, about √n·2⁻⁵³ of the total after n
// additions for rounding errors of random sign (n·2⁻⁵³ at worst). A
// window of that width around each of up to 49,152 boundaries holds
// about 1e-9 of the draws' range, 1e-4 expected draws in 200,000, so the
// count is 0; the streams are seeded, so it is the same 0 every run, and
// any other count is a mistake in the blocks (a wrong mark, a draw that
// stops on a running sum equal to u), not rounding. The test logs the
// draw that came closest to a boundary, as a fraction of the total.
func TestDrawIsTheOldWalk(t *testing.T) {
	const vectors, draws = 400, 500
	r := rand.New(rand.NewPCG(11, 12))
	differ, closest := 0, 1.0
	for v := range vectors {
		n := int(100 * math.Pow(49152.0/100, r.Float64()))
		if v%10 == 0 {
			n = 49152
		}
		temp := float32(0.3 + 1.2*r.Float64())
		lg := make([]float32, n)
		scale, masked := 1+3*r.Float64(), r.Float64()*0.2
		head, tail := r.IntN(2*block), r.IntN(2*block)
		for i := range lg {
			lg[i] = float32(r.NormFloat64() * scale)
			if r.Float64() < masked || (v%3 == 0 && (i < head || i >= n-tail)) {
				lg[i] = float32(math.Inf(-1))
			}
		}
		lg[r.IntN(n)] = 5 // at least one token left
		e, _, ok := qwen3.SoftmaxExps(lg, temp, nil)
		if !ok {
			t.Fatalf("vector %d: no token", v)
		}
		marks, sum := marked(e)
		probs, inv, total := make([]float64, n), 1/sum, 0.0
		for i, x := range e {
			probs[i] = x * inv
			total += probs[i]
		}
		r1, r2 := rand.New(rand.NewPCG(uint64(v), 1)), rand.New(rand.NewPCG(uint64(v), 1))
		for range draws {
			u := r2.Float64() * sum
			got, want := firstAbove(e, marks, u), drawFrom(probs, total, r1)
			if got != want {
				differ++
			}
			below, above := runningSumsAround(e, marks, got)
			closest = min(closest, (u-below)/sum, (above-u)/sum)
		}
	}
	t.Logf("%d of %d draws differ from the old walk's; closest to a boundary: %.3g of the total", differ, vectors*draws, closest)
	if differ != 0 {
		t.Fatalf("%d of %d draws differ from the old walk's", differ, vectors*draws)
	}
}

// runningSumsAround returns the running sums of e before and after index
// i, by the same chain as firstAbove.
func runningSumsAround(e, marks []float64, i int) (below, above float64) {
	k := i / block
	if k > 0 {
		below = marks[k-1]
	}
	for _, v := range e[k*block : i] {
		below += v
	}
	return below, below + e[i]
}
