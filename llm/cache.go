package llm

import "sync"

// Cache stores responses by the unit fingerprint (Request.CacheKey, sample
// index included) so that a rerun replays them exactly. Get sets
// Response.Counted when the usage of the stored reply was counted already
// (a cache hit); a reply whose usage was not (fetched by work lost to an
// interruption) is counted by the request that reuses it. The runner
// implements it on SQLite; MemCache is for tests. Put cannot fail: a
// store that writes later (the runner's, in batches) reports a failed
// write where it writes.
type Cache interface {
	Get(key string) (Response, bool, error)
	Put(key string, resp Response)
}

// MemCache is an in-memory Cache, safe for concurrent use.
type MemCache struct {
	mu sync.Mutex
	m  map[string]Response
}

// NewMemCache returns an empty MemCache.
func NewMemCache() *MemCache { return &MemCache{m: map[string]Response{}} }

// Get implements Cache. Its replies read as counted: the request that put
// one counted its usage in the same process.
func (c *MemCache) Get(key string) (Response, bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	r, ok := c.m[key]
	r = cloneResponse(r)
	r.Counted = ok
	return r, ok, nil
}

// Put implements Cache.
func (c *MemCache) Put(key string, resp Response) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.m[key] = cloneResponse(resp)
}

// Len returns the number of stored responses.
func (c *MemCache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.m)
}

func cloneResponse(r Response) Response {
	r.Choices = append([]string(nil), r.Choices...)
	r.Raw = append([]string(nil), r.Raw...)
	r.FinishReasons = append([]string(nil), r.FinishReasons...)
	r.RequestIDs = nil
	return r
}
