package sample

import (
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// firstAboveRef is the draw's definition as one running sum over all of
// e: the first index whose running sum exceeds u, else the last non-zero
// weight.
func firstAboveRef(e []float64, u float64) int {
	var s float64
	last := 0
	for i, v := range e {
		if v != 0 {
			last = i
		}
		if s += v; s > u {
			return i
		}
	}
	return last
}

// marked returns e's marks and sum (markedSums for e alone).
func marked(e []float64) ([]float64, float64) {
	marks := make([]float64, marksFor(len(e)))
	var sum [1]float64
	markedSums([][]float64{e}, [][]float64{marks}, sum[:])
	return marks, sum[0]
}

// edgeWeights are weight vectors at the draw's edges, by name.
func edgeWeights() map[string][]float64 {
	r := rand.New(rand.NewPCG(5, 6))
	random := func(n int) []float64 {
		e := make([]float64, n)
		for i := range e {
			e[i] = math.Exp(-8 * r.Float64())
		}
		return e
	}
	w := map[string][]float64{}
	for _, n := range []int{1, 2, 63, 64, 65, 200} {
		for _, at := range []int{0, n / 2, 63, 64, n - 1} {
			if at < n {
				e := make([]float64, n)
				e[at] = 1
				w[fmt.Sprintf("all mass on %d of %d", at, n)] = e
			}
		}
	}
	for _, n := range []int{1, 5, 63} {
		w[fmt.Sprintf("%d weights, shorter than a block", n)] = random(n)
	}
	w["three blocks and 17"] = random(3*block + 17)
	w["eight whole blocks"] = random(8 * block)
	e := random(300)
	for i := range e {
		if i < 70 || i >= 230 || i%7 == 0 {
			e[i] = 0 // masked: a whole block at each end, and some inside
		}
	}
	w["masked at both ends"] = e
	w["masked first and last"] = random(130)
	w["masked first and last"][0], w["masked first and last"][129] = 0, 0
	ones, tenths := make([]float64, 200), make([]float64, 200)
	for i := range ones {
		ones[i], tenths[i] = 1, 0.1 // exact and inexact running sums
	}
	w["ties of 1"], w["ties of 0.1"] = ones, tenths
	e = random(1000)
	for i := range e {
		if i%3 == 0 {
			e[i] = e[i/3] // ties scattered among the rest
		}
		if i%50 == 7 {
			e[i] = math.Exp(-700) // too small to move the running sum
		}
	}
	w["scattered ties and negligible weights"] = e
	return w
}

// TestFirstAboveIsTheDefinition checks the marked draw against the one
// long running sum at every running sum of the edge vectors, the floats
// either side of it, every mark, zero and random points: the same index
// each time, and a token of weight 0 never. u equal to a mark (a block's
// last running sum) below the sum must go past that block, to the next
// non-zero weight.
func TestFirstAboveIsTheDefinition(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	w := edgeWeights()
	for _, name := range slices.Sorted(maps.Keys(w)) {
		e := w[name]
		marks, sum := marked(e)
		us := []float64{0, sum, math.Nextafter(sum, 0)}
		var s float64
		for _, v := range e {
			s += v
			us = append(us, s, math.Nextafter(s, 0), math.Nextafter(s, math.Inf(1)))
		}
		if s != sum {
			t.Fatalf("%s: markedSums's sum %v, a plain loop's %v", name, sum, s)
		}
		us = append(us, marks...)
		for range 1000 {
			us = append(us, r.Float64()*sum)
		}
		for _, u := range us {
			got, want := firstAbove(e, marks, u), firstAboveRef(e, u)
			if got != want {
				t.Fatalf("%s, u = %v: index %d, the definition %d", name, u, got, want)
			}
			if u < sum && e[got] == 0 {
				t.Fatalf("%s, u = %v: drew %d, of weight 0", name, u, got)
			}
		}
		for k, m := range marks {
			if m == sum {
				continue // no weight after it: the last non-zero one
			}
			got := firstAbove(e, marks, m)
			if got < (k+1)*block || e[got] == 0 {
				t.Fatalf("%s: u at mark %d (%v) drew %d (weight %v), not past block %d", name, k, m, got, e[got], k)
			}
		}
	}
}

// TestMarkedSumsArePlainLoops checks markedSums, which runs four vectors
// per loop, against a plain loop per vector, bit for bit, sums and marks,
// for one to nine vectors (some of other lengths among them).
func TestMarkedSumsArePlainLoops(t *testing.T) {
	for n := 1; n <= 9; n++ {
		es, marks := make([][]float64, n), make([][]float64, n)
		for s := range es {
			es[s] = make([]float64, 1001+s/6+(s%5/4)*400)
			for i := range es[s] {
				es[s][i] = math.Exp(-float64((i*7919+s*31)%1013) / 97)
			}
			marks[s] = make([]float64, marksFor(len(es[s])))
		}
		sums := make([]float64, n)
		markedSums(es, marks, sums)
		for s, e := range es {
			var sum float64
			for i, v := range e {
				sum += v
				if (i+1)%block == 0 || i == len(e)-1 {
					if k := i / block; math.Float64bits(marks[s][k]) != math.Float64bits(sum) {
						t.Fatalf("%d vectors, vector %d, mark %d: %v, plain loop %v", n, s, k, marks[s][k], sum)
					}
				}
			}
			if math.Float64bits(sums[s]) != math.Float64bits(sum) {
				t.Fatalf("%d vectors, vector %d: sum %v, plain loop %v", n, s, sums[s], sum)
			}
		}
	}
}
