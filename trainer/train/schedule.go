package train

import (
	"math/rand/v2"
	"slices"
)

// BucketWindow is how many consecutive batches the schedule sorts by
// length together (see pickAt).
const BucketWindow = 16

// pick returns the example indices of micro-batch j of step k.
func (s *session) pick(n, k, j int, length func(i int) int) []int {
	return s.pickAt(n, k*s.o.GradAccum+j, length)
}

// pickAt returns the BatchSize example indices of batch slot number slot.
// The examples are read in epochs, each a fresh permutation seeded by
// (seed, epoch), as one stream; slot s takes BatchSize of them. With a
// length function the stream is bucketed: each window of BucketWindow
// batches' worth of the stream is sorted by length (longest first, ties
// in stream order), cut into batches, and the batches of the window are
// visited in an order seeded by (seed, window). Batches then hold
// examples of similar lengths, each padded to its own longest, and the
// schedule stays a function of the seed, the step and the micro-batch
// only, so a resumed run sees the same data.
func (s *session) pickAt(n, slot int, length func(i int) int) []int {
	b := s.o.BatchSize
	stream := func(lo, cnt int) []int {
		out := make([]int, cnt)
		var perm []int
		epoch := -1
		for i := range out {
			g := lo + i
			if e := g / n; e != epoch {
				epoch = e
				perm = rand.New(rand.NewPCG(s.o.Seed, uint64(e)+1)).Perm(n)
			}
			out[i] = perm[g%n]
		}
		return out
	}
	if length == nil {
		return stream(slot*b, b)
	}
	w := slot / BucketWindow
	win := stream(w*BucketWindow*b, BucketWindow*b)
	slices.SortStableFunc(win, func(x, y int) int { return length(y) - length(x) })
	order := rand.New(rand.NewPCG(s.o.Seed^0xb0c4e7, uint64(w)+1)).Perm(BucketWindow)
	at := order[slot%BucketWindow] * b
	return win[at : at+b]
}
