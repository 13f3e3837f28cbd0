package qwen3

import (
	"math/bits"
	"sync"
)

// A cache's keys and values grow one position per decoding step. With
// append's growth every reallocation is fresh memory for the collector to
// clear and, once the runtime has returned it to the OS, to fault back
// in: a cost per sequence that batching does not share. So the arrays
// grow to powers of two, and the ones a cache gives up (when it grows, or
// on Release) are kept here for the next cache. Only storage moves; no
// value and no arithmetic changes. The padded operands of matmulT8 and a
// pass's activations (decodeRows) come from the same pools, so that a
// decoding step allocates no array of its own.

// minFloatClass is the smallest array kept (2¹⁰ floats).
const minFloatClass = 10

// floatPools[c] holds arrays of exactly 2^c floats.
var floatPools [40]sync.Pool

// getFloats returns an empty slice with room for at least n floats; its
// contents beyond the length are whatever the last user left.
func getFloats(n int) []float32 {
	c := max(minFloatClass, bits.Len(uint(n-1)))
	if p, ok := floatPools[c].Get().(*[]float32); ok {
		return (*p)[:0]
	}
	return make([]float32, 0, 1<<c)
}

// putFloats keeps b's array for another cache when it has a pool's size.
func putFloats(b []float32) {
	c := cap(b)
	if c < 1<<minFloatClass || c&(c-1) != 0 {
		return
	}
	b = b[:0]
	floatPools[bits.Len(uint(c))-1].Put(&b)
}

// appendKV appends x to s, growing s into a pooled array twice as large
// (at least) when it is full.
func appendKV(s, x []float32) []float32 {
	if len(s)+len(x) > cap(s) {
		t := append(getFloats(max(len(s)+len(x), 2*cap(s))), s...)
		putFloats(s)
		s = t
	}
	return append(s, x...)
}

// Release gives the cache's arrays back for other caches to reuse and
// leaves it empty. The caller must hold no other reference to them: a
// cache being released must not be in use anywhere else.
func (c *Cache) Release() {
	for i := range c.k {
		putFloats(c.k[i])
		putFloats(c.v[i])
		c.k[i], c.v[i] = nil, nil
	}
	c.n = 0
}
