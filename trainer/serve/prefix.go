package serve

import (
	"container/list"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"mascot.dev/mascot/trainer/qwen3"
)

// DefaultPrefixCacheBytes is the default memory budget of the prompt-prefix
// KV cache (Options.PrefixCacheBytes).
const DefaultPrefixCacheBytes = 8 << 20

// minSuffix is the fewest prompt tokens prefilled after a cached prefix
// (the logits after the prompt's last token come from prefilling it), and
// the shortest prompt kept. The decoder gives a row the same bits however
// its sequence is cut into blocks, so a prompt that reuses a prefix gets
// the bits of a prefill from scratch.
const minSuffix = 1

// prefixCache keeps the KV caches of recently prefilled prompts, least
// recently used first out, within a memory budget. A new prompt reuses the
// longest token prefix it shares with a kept prompt of the same model view
// (base or adapter: adapters change the keys and values), so requests that
// share a long system prompt or rubric prefill only what differs. It is
// safe for concurrent use.
type prefixCache struct {
	budget int64

	mu      sync.Mutex
	entries *list.List // of *prefixEntry, most recently used first
	bytes   int64

	// queried and hit count prompt tokens looked up and reused, as vLLM's
	// vllm:prefix_cache_queries and vllm:prefix_cache_hits.
	queried, hit atomic.Int64
}

type prefixEntry struct {
	prompt []int
	cache  *qwen3.Cache // never extended: users get a ClonePrefix
}

// newPrefixCache returns a cache holding at most budget bytes of keys and
// values; budget ≤ 0 keeps nothing.
func newPrefixCache(budget int64) *prefixCache {
	return &prefixCache{budget: budget, entries: list.New()}
}

// prefill returns a cache of prompt on model and the logits after its last
// token, reusing the longest cached prefix, and keeps the result. The
// returned cache is the caller's to extend. (The engine does the same in
// blocks: start, then Extend passes, then finish.)
func (p *prefixCache) prefill(model *qwen3.Model, prompt []int) (*qwen3.Cache, []float32, error) {
	c, reused := p.start(model, prompt)
	lg, err := model.Prefill(c, prompt[reused:])
	if err != nil {
		return nil, nil, fmt.Errorf("prefilling the prompt: %w", err)
	}
	return p.finish(model, prompt, c), lg, nil
}

// start returns a fresh cache for prompt on model holding the longest
// usable cached prefix, and that prefix's length; the rest of the prompt
// (at least minSuffix tokens) is the caller's to prefill.
func (p *prefixCache) start(model *qwen3.Model, prompt []int) (*qwen3.Cache, int) {
	p.queried.Add(int64(len(prompt)))
	c, reused := p.lookup(model, prompt)
	p.hit.Add(int64(reused))
	return c, reused
}

// finish offers c, now holding all of prompt, to the cache, and returns the
// cache the caller goes on extending (a copy when c is kept).
func (p *prefixCache) finish(model *qwen3.Model, prompt []int, c *qwen3.Cache) *qwen3.Cache {
	if !p.keep(model, prompt, c) {
		return c
	}
	return c.ClonePrefix(c.Len())
}

// lookup returns a fresh cache holding the longest usable cached prefix of
// prompt on model, and its length.
func (p *prefixCache) lookup(model *qwen3.Model, prompt []int) (*qwen3.Cache, int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	var best *list.Element
	bestN := 0
	limit := len(prompt) - minSuffix
	for el := p.entries.Front(); el != nil; el = el.Next() {
		e := el.Value.(*prefixEntry)
		if e.cache.Model() != model {
			continue
		}
		if n := min(commonPrefix(e.prompt, prompt), limit); n > bestN {
			best, bestN = el, n
		}
	}
	if best == nil {
		return model.NewCache(), 0
	}
	p.entries.MoveToFront(best)
	return best.Value.(*prefixEntry).cache.ClonePrefix(bestN), bestN
}

// keep stores c (the cache of prompt) unless a kept prompt already starts
// with prompt, replaces kept prompts that prompt extends, and evicts the
// least recently used entries past the budget. It says whether it kept c.
func (p *prefixCache) keep(model *qwen3.Model, prompt []int, c *qwen3.Cache) bool {
	size := c.Bytes()
	if len(prompt) < minSuffix || size > p.budget {
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for el := p.entries.Front(); el != nil; {
		next := el.Next()
		e := el.Value.(*prefixEntry)
		if e.cache.Model() == model {
			n := commonPrefix(e.prompt, prompt)
			switch {
			case n == len(prompt):
				p.entries.MoveToFront(el)
				return false
			case n == len(e.prompt):
				p.remove(el)
			}
		}
		el = next
	}
	p.entries.PushFront(&prefixEntry{prompt: slices.Clone(prompt), cache: c})
	p.bytes += size
	for p.bytes > p.budget {
		p.remove(p.entries.Back())
	}
	return true
}

func (p *prefixCache) remove(el *list.Element) {
	p.bytes -= el.Value.(*prefixEntry).cache.Bytes()
	p.entries.Remove(el)
}

// drop forgets every entry of the views for which gone is true, e.g. an
// unloaded adapter or the models replaced by a reload.
func (p *prefixCache) drop(gone func(*qwen3.Model) bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for el := p.entries.Front(); el != nil; {
		next := el.Next()
		if gone(el.Value.(*prefixEntry).cache.Model()) {
			p.remove(el)
		}
		el = next
	}
}

// usage is the number of kept prompts and the bytes they hold.
func (p *prefixCache) usage() (int, int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.entries.Len(), p.bytes
}

func commonPrefix(a, b []int) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}
