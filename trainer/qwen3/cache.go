package qwen3

import (
	"fmt"
	"slices"
)

// Cache holds one sequence's keys and values (after q/k norm and RoPE) for
// every layer, so each new token costs one pass over the weights. A Cache
// belongs to the model view that created it (adapters change the keys) and
// is not safe for concurrent use.
type Cache struct {
	model *Model
	k, v  [][]float32 // per layer: positions × KVDim
	n     int
}

// NewCache returns an empty cache for this model view.
func (m *Model) NewCache() *Cache {
	L := len(m.layers)
	return &Cache{model: m, k: make([][]float32, L), v: make([][]float32, L)}
}

// Len is the number of positions cached.
func (c *Cache) Len() int { return c.n }

// Clone returns an independent copy, e.g. to sample several completions of
// one prefilled prompt.
func (c *Cache) Clone() *Cache {
	d := &Cache{model: c.model, n: c.n, k: make([][]float32, len(c.k)), v: make([][]float32, len(c.v))}
	for i := range c.k {
		d.k[i] = slices.Clone(c.k[i])
		d.v[i] = slices.Clone(c.v[i])
	}
	return d
}

// ClonePrefix returns an independent copy of the first n positions
// (n ≤ Len), e.g. to extend a cached prompt prefix with another suffix.
func (c *Cache) ClonePrefix(n int) *Cache {
	n = min(max(n, 0), c.n)
	kv := c.model.Config.KVDim()
	d := &Cache{model: c.model, n: n, k: make([][]float32, len(c.k)), v: make([][]float32, len(c.v))}
	for i := range c.k {
		d.k[i] = slices.Clone(c.k[i][:n*kv])
		d.v[i] = slices.Clone(c.v[i][:n*kv])
	}
	return d
}

// Model is the model view the cache belongs to.
func (c *Cache) Model() *Model { return c.model }

// Bytes is the memory the cached keys and values take.
func (c *Cache) Bytes() int64 {
	return int64(c.n) * c.model.Config.KVBytesPerToken()
}

// Truncate drops every position from n on (n ≤ Len), e.g. to reuse a
// cached prompt prefix.
func (c *Cache) Truncate(n int) {
	if n < 0 || n >= c.n {
		return
	}
	kv := c.model.Config.KVDim()
	for i := range c.k {
		c.k[i] = c.k[i][:n*kv]
		c.v[i] = c.v[i][:n*kv]
	}
	c.n = n
}

func (m *Model) checkCache(c *Cache) error {
	if c == nil || c.model != m {
		return fmt.Errorf("running model: cache belongs to another model view")
	}
	return nil
}
