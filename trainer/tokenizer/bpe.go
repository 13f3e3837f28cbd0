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
	// next[i] links live symbols; rank[i] is the rank of the pair starting
	// at live symbol i (-1: none).
	next := make([]int32, n)
	rank := make([]int32, n)
	for i := range n {
		next[i] = int32(i + 1)
		rank[i] = -1
		if i+1 < n {
			if mg, ok := m.merges[pairKey(ids[i], ids[i+1])]; ok {
				rank[i] = mg.rank
			}
		}
	}
	next[n-1] = -1
	prev := make([]int32, n)
	for i := range n {
		prev[i] = int32(i - 1)
	}
	for {
		best := int32(-1)
		for i := int32(0); i >= 0; i = next[i] {
			if rank[i] >= 0 && (best < 0 || rank[i] < rank[best]) {
				best = i
			}
		}
		if best < 0 {
			break
		}
		r := next[best]
		ids[best] = m.merges[pairKey(ids[best], ids[r])].id
		next[best] = next[r]
		if next[r] >= 0 {
			prev[next[r]] = best
		}
		rank[best] = m.pairRank(ids, best, next[best])
		if p := prev[best]; p >= 0 {
			rank[p] = m.pairRank(ids, p, best)
		}
	}
	out := ids[:0]
	for i := int32(0); i >= 0; i = next[i] {
		out = append(out, ids[i])
	}
	return out
}

// pairRank is the rank of merging symbols l and r, or -1.
func (m *bpe) pairRank(ids []int32, l, r int32) int32 {
	if r < 0 {
		return -1
	}
	if mg, ok := m.merges[pairKey(ids[l], ids[r])]; ok {
		return mg.rank
	}
	return -1
}

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
