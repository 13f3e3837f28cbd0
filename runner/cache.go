package runner

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"time"

	"mascot.dev/mascot/results"
	"mascot.dev/mascot/runner/llm"
)

// Write-behind of the response cache: responses are written in batches,
// every cacheFlushEvery or as soon as cacheFlushAt are pending, so that
// requests do not queue one by one for SQLite's single writer. A crash
// loses at most the responses of the last interval (their units are not
// committed either, and rerun them).
const (
	cacheFlushEvery = 100 * time.Millisecond
	cacheFlushAt    = 512
)

// storeCache keeps LLM responses in SQLite so reruns replay exactly.
type storeCache struct {
	ctx context.Context
	s   *results.Store
	log *slog.Logger

	mu      sync.Mutex
	pending map[string]json.RawMessage
	// units holds the cached responses of the units in flight, read in
	// one query when each starts (keys begin "<unit fingerprint>|").
	units map[string]map[string]json.RawMessage
	kick  chan struct{}
	quit  chan struct{}
	done  chan struct{}
}

func newStoreCache(ctx context.Context, s *results.Store, log *slog.Logger) *storeCache {
	c := &storeCache{ctx: context.WithoutCancel(ctx), s: s, log: log, pending: map[string]json.RawMessage{},
		units: map[string]map[string]json.RawMessage{},
		kick:  make(chan struct{}, 1), quit: make(chan struct{}), done: make(chan struct{})}
	go c.loop()
	return c
}

// prefetch reads the cached responses of unit fp at once, so its requests
// do not each query the cache. A unit with none stored (see holding) is
// not read: its requests miss at no cost.
func (c *storeCache) prefetch(ctx context.Context, fp string, stored bool) {
	m := map[string]json.RawMessage{}
	if stored {
		var err error
		if m, err = c.s.LLMCache().GetPrefix(ctx, fp); err != nil {
			c.log.Warn("reading the LLM response cache", "err", err)
			return // its requests read the store one by one
		}
	}
	c.mu.Lock()
	c.units[fp] = m
	c.mu.Unlock()
}

// holding returns which of the units fps have cached responses, in one
// query; nil (every unit read) when the query fails.
func (c *storeCache) holding(ctx context.Context, fps []string) map[string]bool {
	m, err := c.s.LLMCache().Holding(ctx, fps)
	if err != nil {
		c.log.Warn("reading the LLM response cache", "err", err)
		return nil
	}
	return m
}

// forget drops what prefetch read for unit fp.
func (c *storeCache) forget(fp string) {
	c.mu.Lock()
	delete(c.units, fp)
	c.mu.Unlock()
}

func (c *storeCache) Get(key string) (llm.Response, bool, error) {
	c.mu.Lock()
	raw, ok := c.pending[key]
	unit, known := c.units[unitOf(key)]
	if !ok && known {
		raw, ok = unit[key]
	}
	c.mu.Unlock()
	if !ok && !known {
		var err error
		raw, ok, err = c.s.LLMCache().Get(c.ctx, key)
		if err != nil || !ok {
			return llm.Response{}, false, err
		}
	}
	var r llm.Response
	if err := json.Unmarshal(raw, &r); err != nil {
		return llm.Response{}, false, nil
	}
	return r, true, nil
}

func (c *storeCache) Put(key string, resp llm.Response) error {
	b, err := json.Marshal(resp)
	if err != nil {
		return err
	}
	c.mu.Lock()
	c.pending[key] = b
	if unit, ok := c.units[unitOf(key)]; ok {
		unit[key] = b
	}
	n := len(c.pending)
	c.mu.Unlock()
	if n >= cacheFlushAt {
		select {
		case c.kick <- struct{}{}:
		default:
		}
	}
	return nil
}

func (c *storeCache) loop() {
	defer close(c.done)
	t := time.NewTicker(cacheFlushEvery)
	defer t.Stop()
	for {
		select {
		case <-c.quit:
			c.flush()
			return
		case <-t.C:
		case <-c.kick:
		}
		c.flush()
	}
}

// flush writes the pending responses, all or none, in the store's next group
// transaction (see results.LLMCache.PutMany); they stay
// readable from pending until written.
func (c *storeCache) flush() {
	c.mu.Lock()
	batch := make(map[string]json.RawMessage, len(c.pending))
	for k, v := range c.pending {
		batch[k] = v
	}
	c.mu.Unlock()
	if len(batch) == 0 {
		return
	}
	if err := c.s.LLMCache().PutMany(c.ctx, batch); err != nil {
		c.log.Warn("writing the LLM response cache", "err", err)
		return
	}
	c.mu.Lock()
	for k, v := range batch {
		if string(c.pending[k]) == string(v) {
			delete(c.pending, k)
		}
	}
	c.mu.Unlock()
}

// close writes what is pending and stops the writer.
func (c *storeCache) close() error {
	select {
	case <-c.quit:
	default:
		close(c.quit)
	}
	<-c.done
	return nil
}

// unitOf is the unit part of a cache key ("<fingerprint>|role|...").
func unitOf(key string) string {
	if i := strings.IndexByte(key, '|'); i >= 0 {
		return key[:i]
	}
	return key
}
