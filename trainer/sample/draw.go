package sample

import "sync"

// A draw over every token picks the first index whose running sum of the
// weights, added in index order, exceeds u = r.Float64()·sum, sum being
// that running sum at the end: index i with probability e[i] / sum, a
// zero weight (a masked token) never. A walk that subtracts the weights
// from u one by one draws from the same distribution but is one chain of
// dependent subtractions over half the vocabulary on average; here the
// summing pass that the softmax needs anyway records its running sum at
// the end of every block of weights (the marks), the draw finds u's
// block among the marks by bisection, and adds up that one block again
// from the mark before it. Restarting the chain from a mark gives the
// very bits of the whole chain's partial sums, so the token is the one
// the definition names, whatever the block size.

// block is how many weights a mark covers: a draw adds up at most one
// block again, and a 49,152-token vocabulary keeps 768 marks.
const block = 64

// marksFor is how many marks a vector of n weights has.
func marksFor(n int) int { return (n + block - 1) / block }

// buffers is one sequence's scratch: its exponentials (or probabilities)
// and their marks, reused rather than allocated per token.
type buffers struct{ e, marks []float64 }

var scratch = sync.Pool{New: func() any { return new(buffers) }}

// markedSums sets sums[s] to the sum of es[s] in index order, the bits of
// a plain loop, and marks[s][k] to that running sum at the end of block
// k (marks[s] holds marksFor(len(es[s])) values). A sum over a vocabulary
// is a chain of dependent additions bound by the adder's latency, so
// four vectors of one length go through one loop, their chains
// overlapping; each chain keeps its order and bits.
func markedSums(es, marks [][]float64, sums []float64) {
	s := 0
	for ; s+4 <= len(es) && sameLen(es[s:s+4]); s += 4 {
		a, b, c, d := es[s], es[s+1], es[s+2], es[s+3]
		ma, mb, mc, md := marks[s], marks[s+1], marks[s+2], marks[s+3]
		n := len(a)
		ma, mb, mc, md = ma[:marksFor(n)], mb[:marksFor(n)], mc[:marksFor(n)], md[:marksFor(n)]
		var sa, sb, sc, sd float64
		for k := range ma {
			lo, hi := k*block, min(k*block+block, n)
			xa, xb, xc, xd := a[lo:hi], b[lo:hi], c[lo:hi], d[lo:hi]
			for i := range xa {
				sa += xa[i]
				sb += xb[i]
				sc += xc[i]
				sd += xd[i]
			}
			ma[k], mb[k], mc[k], md[k] = sa, sb, sc, sd
		}
		sums[s], sums[s+1], sums[s+2], sums[s+3] = sa, sb, sc, sd
	}
	for ; s < len(es); s++ {
		e, m := es[s], marks[s][:marksFor(len(es[s]))]
		var sum float64
		for k := range m {
			for _, v := range e[k*block : min(k*block+block, len(e))] {
				sum += v
			}
			m[k] = sum
		}
		sums[s] = sum
	}
}

func sameLen(es [][]float64) bool {
	for _, e := range es[1:] {
		if len(e) != len(es[0]) {
			return false
		}
	}
	return true
}

// firstAbove returns the first index of e whose running sum exceeds u,
// marks being e's (markedSums), else the last non-zero weight (u not
// below the sum, which u = F·sum with F < 1 never is).
func firstAbove(e, marks []float64, u float64) int {
	// The weights are not negative and rounding is monotone, so the
	// running sums, and the marks, never decrease: the first mark above
	// u ends the block that holds the first running sum above u.
	lo, hi := 0, len(marks)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if marks[m] > u {
			hi = m
		} else {
			lo = m + 1
		}
	}
	if lo < len(marks) {
		var s float64
		if lo > 0 {
			s = marks[lo-1]
		}
		from := lo * block
		for i, v := range e[from:min(from+block, len(e))] {
			if s += v; s > u {
				return from + i
			}
		}
	}
	for i := len(e) - 1; i > 0; i-- {
		if e[i] != 0 {
			return i
		}
	}
	return 0
}
