package tokenizer

import (
	"strings"
	"sync"
)

// merge is the outcome of merging one adjacent pair: its priority (lower
// merges first) and the id of the merged token.
type merge struct{ rank, id int32 }

// bpe is the byte-level BPE model: ids of the single-byte tokens and the
// ranked merges, keyed by pairKey(left, right).
type bpe struct {
	byteIDs      [256]int32 // -1 when the byte has no token
	merges       map[uint64]merge
	vocab        map[string]int32 // byte-level spelling -> id (model tokens only)
	ignoreMerges bool
	cache        wordCache
}

func pairKey(l, r int32) uint64 { return uint64(uint32(l))<<32 | uint64(uint32(r)) }

// appendWord appends the ids of one pre-token (raw bytes) to dst.
func (m *bpe) appendWord(dst []int, word string) []int {
	if ids, ok := m.cache.get(word); ok {
		for _, id := range ids {
			dst = append(dst, int(id))
		}
		return dst
	}
	ids := m.word(word)
	m.cache.put(word, ids)
	for _, id := range ids {
		dst = append(dst, int(id))
	}
	return dst
}

// word runs BPE on one pre-token: start from one symbol per byte and merge
// the lowest-ranked adjacent pair, leftmost on ties, until no pair merges.
func (m *bpe) word(word string) []int32 {
	if m.ignoreMerges {
		if id, ok := m.vocab[byteLevel(word)]; ok {
			return []int32{id}
		}
	}
	ids := make([]int32, 0, len(word))
	for i := 0; i < len(word); i++ {
		if id := m.byteIDs[word[i]]; id >= 0 {
			ids = append(ids, id)
		}
	}
	n := len(ids)
	if n < 2 {
		return ids
	}
	// Live symbols form a linked list; candidate merges wait in a min-heap
	// ordered by (rank, position) and are checked when popped, since a
	// neighbour may have changed in the meantime.
	next := make([]int32, n)
	prev := make([]int32, n)
	var h candHeap
	for i := range n {
		next[i], prev[i] = int32(i+1), int32(i-1)
		if i+1 < n {
			h.pushPair(m, ids, int32(i), int32(i+1))
		}
	}
	next[n-1] = -1
	for len(h) > 0 {
		c := h.pop()
		r := next[c.pos]
		if r < 0 || ids[c.pos] != c.left || ids[r] != c.right {
			continue // stale
		}
		ids[c.pos] = c.id
		next[c.pos] = next[r]
		if next[r] >= 0 {
			prev[next[r]] = c.pos
		}
		ids[r] = -1 // dead
		if p := prev[c.pos]; p >= 0 {
			h.pushPair(m, ids, p, c.pos)
		}
		if nx := next[c.pos]; nx >= 0 {
			h.pushPair(m, ids, c.pos, nx)
		}
	}
	out := ids[:0]
	for i := int32(0); i >= 0; i = next[i] {
		out = append(out, ids[i])
	}
	return out
}

// cand is a possible merge of the live symbols at pos and its successor.
type cand struct {
	rank, pos       int32
	left, right, id int32
}

// candHeap is a binary min-heap of merges by (rank, pos).
type candHeap []cand

func (h *candHeap) pushPair(m *bpe, ids []int32, l, r int32) {
	mg, ok := m.merges[pairKey(ids[l], ids[r])]
	if !ok {
		return
	}
	*h = append(*h, cand{rank: mg.rank, pos: l, left: ids[l], right: ids[r], id: mg.id})
	a := *h
	for i := len(a) - 1; i > 0; {
		p := (i - 1) / 2
		if !a[i].less(a[p]) {
			break
		}
		a[i], a[p] = a[p], a[i]
		i = p
	}
}

func (h *candHeap) pop() cand {
	a := *h
	top := a[0]
	last := len(a) - 1
	a[0] = a[last]
	a = a[:last]
	for i := 0; ; {
		l, small := 2*i+1, i
		if l < len(a) && a[l].less(a[small]) {
			small = l
		}
		if l+1 < len(a) && a[l+1].less(a[small]) {
			small = l + 1
		}
		if small == i {
			break
		}
		a[i], a[small] = a[small], a[i]
		i = small
	}
	*h = a
	return top
}

func (c cand) less(d cand) bool { return c.rank < d.rank || c.rank == d.rank && c.pos < d.pos }

// wordCache remembers the ids of short pre-tokens. It is safe for concurrent
// use and bounded: when full it starts over.
type wordCache struct {
	mu sync.RWMutex
	m  map[string][]int32
}

const (
	cacheMaxEntries = 1 << 16
	cacheMaxWordLen = 256
)

func (c *wordCache) get(w string) ([]int32, bool) {
	if len(w) > cacheMaxWordLen {
		return nil, false
	}
	c.mu.RLock()
	ids, ok := c.m[w]
	c.mu.RUnlock()
	return ids, ok
}

func (c *wordCache) put(w string, ids []int32) {
	if len(w) > cacheMaxWordLen {
		return
	}
	c.mu.Lock()
	if c.m == nil || len(c.m) >= cacheMaxEntries {
		c.m = make(map[string][]int32, 1024)
	}
	c.m[strings.Clone(w)] = ids
	c.mu.Unlock()
}

// reset empties the cache.
func (c *wordCache) reset() {
	c.mu.Lock()
	c.m = nil
	c.mu.Unlock()
}
