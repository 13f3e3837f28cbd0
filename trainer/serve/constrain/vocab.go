package constrain

import (
	"math"
	"sort"
)

// Vocab is a byte trie over the spellings of a tokenizer's tokens. It is
// immutable and safe for concurrent use.
type Vocab struct {
	root trie
}

type trie struct {
	ids  []int
	keys []byte
	kids []*trie
}

// NewVocab builds the trie of tokens 0..size-1; spell returns a token's
// bytes, or nil for a token that must never be produced inside a document
// (special tokens, unused ids).
func NewVocab(size int, spell func(id int) []byte) *Vocab {
	v := &Vocab{}
	for id := 0; id < size; id++ {
		b := spell(id)
		if len(b) == 0 {
			continue
		}
		t := &v.root
		for _, c := range b {
			t = t.child(c)
		}
		t.ids = append(t.ids, id)
	}
	return v
}

func (t *trie) child(c byte) *trie {
	i := sort.Search(len(t.keys), func(i int) bool { return t.keys[i] >= c })
	if i < len(t.keys) && t.keys[i] == c {
		return t.kids[i]
	}
	k := &trie{}
	t.keys = append(t.keys, 0)
	t.kids = append(t.kids, nil)
	copy(t.keys[i+1:], t.keys[i:])
	copy(t.kids[i+1:], t.kids[i:])
	t.keys[i], t.kids[i] = c, k
	return k
}

// Walk calls fn for every token whose bytes m accepts, with the Rest of the
// machine after that token. m is not modified.
func (v *Vocab) Walk(m *Machine, fn func(id, rest int)) {
	w := walker{fn: fn}
	v.root.walk(m, 0, &w)
}

// walker holds one scratch machine per trie depth, so probing a child
// copies the parent's stack without allocating.
type walker struct {
	fn      func(id, rest int)
	scratch []*Machine
}

func (t *trie) walk(m *Machine, depth int, w *walker) {
	if len(t.ids) > 0 {
		r := m.Rest()
		for _, id := range t.ids {
			w.fn(id, r)
		}
	}
	if len(t.keys) == 0 {
		return
	}
	if depth == len(w.scratch) {
		w.scratch = append(w.scratch, &Machine{})
	}
	c := w.scratch[depth]
	for i, b := range t.keys {
		c.stack = append(c.stack[:0], m.stack...)
		c.done = m.done
		if c.Feed(b) {
			t.kids[i].walk(c, depth+1, w)
		}
	}
}

// Mask sets to −Inf every logit whose token cannot continue the document
// in m. When m is complete only the stop tokens stay. Otherwise stop tokens
// are masked, and a token is kept only if the document can still be
// completed, plus one stop token, within budget tokens (budget counts the
// token being chosen); when no token fits, the tokens that leave the
// shortest completion are kept, so the sampler always has a choice.
func (v *Vocab) Mask(m *Machine, budget int, stop []int, logits []float32) {
	keep := make([]bool, len(logits))
	if m.Accepting() {
		for _, s := range stop {
			if s >= 0 && s < len(keep) {
				keep[s] = true
			}
		}
	} else {
		type cand struct{ id, rest int }
		var cs []cand
		best := math.MaxInt32
		v.Walk(m, func(id, rest int) {
			if id < len(keep) {
				cs = append(cs, cand{id, rest})
				best = min(best, rest)
			}
		})
		limit := budget - 2 // this token, then the stop token
		if best > limit {
			limit = best
		}
		for _, c := range cs {
			if c.rest <= limit {
				keep[c.id] = true
			}
		}
	}
	inf := float32(math.Inf(-1))
	for i := range logits {
		if !keep[i] {
			logits[i] = inf
		}
	}
}
