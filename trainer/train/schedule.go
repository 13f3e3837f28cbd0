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
// (seed, epoch), as one stream; slot s takes the stream's BatchSize
// examples from s·BatchSize on. With a length function each epoch is
// bucketed before it joins the stream: its permutation is cut into
// windows of BucketWindow·BatchSize examples, each window sorted by
// length (longest first, ties in permutation order) and cut into
// batch-sized chunks, and the chunks of a window are visited in an order
// seeded by (seed, epoch, window). Batches then hold examples of similar
// lengths, each padded to its own longest; no window spans two epochs,
// so an example repeats within a batch only where one epoch ends; and the
// schedule stays a function of the seed, the step and the micro-batch, so
// a resumed run sees the same data.
func (s *session) pickAt(n, slot int, length func(i int) int) []int {
	b := s.o.BatchSize
	out := make([]int, b)
	var seq []int
	epoch := -1
	for i := range out {
		g := slot*b + i
		if e := g / n; e != epoch {
			epoch = e
			seq = s.epochOrder(n, e, length)
		}
		out[i] = seq[g%n]
	}
	return out
}

// orderCache keeps the last epoch order computed.
type orderCache struct {
	n, e     int
	bucketed bool
	order    []int
}

// epochOrder is the order epoch e reads the n examples in.
func (s *session) epochOrder(n, e int, length func(i int) int) []int {
	c := &s.orders
	if c.order != nil && c.n == n && c.e == e && c.bucketed == (length != nil) {
		return c.order
	}
	*c = orderCache{n: n, e: e, bucketed: length != nil, order: s.computeOrder(n, e, length)}
	return c.order
}

func (s *session) computeOrder(n, e int, length func(i int) int) []int {
	perm := rand.New(rand.NewPCG(s.o.Seed, uint64(e)+1)).Perm(n)
	if length == nil {
		return perm
	}
	b := s.o.BatchSize
	win := BucketWindow * b
	out := make([]int, 0, n)
	for w, lo := 0, 0; lo < n; w, lo = w+1, lo+win {
		chunk := slices.Clone(perm[lo:min(lo+win, n)])
		slices.SortStableFunc(chunk, func(x, y int) int { return length(y) - length(x) })
		parts := (len(chunk) + b - 1) / b
		for _, c := range rand.New(rand.NewPCG(s.o.Seed^0xb0c4e7, uint64(e)<<20|uint64(w))).Perm(parts) {
			out = append(out, chunk[c*b:min((c+1)*b, len(chunk))]...)
		}
	}
	return out
}
