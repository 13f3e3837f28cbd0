package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"mascot.dev/mascot/llm"
	"mascot.dev/mascot/results"
)

// Write-behind of the response cache: responses are written in batches,
// every cacheFlushEvery or as soon as cacheFlushAt are pending, so that
// requests do not queue one by one for SQLite's single writer. A crash
// loses at most the responses of the last interval (their units are not
// committed either, and rerun them); their attempts stay recorded, open,
// and the next run counts them as lost in flight.
const (
	cacheFlushEvery = 100 * time.Millisecond
	cacheFlushAt    = 512
)

// storeCache keeps LLM responses in SQLite so reruns replay exactly, and
// journals every attempt before it is sent (llm.Journal), so a run's LLM
// counters stay exact however often its process is killed:
//   - an attempt is recorded, and counted, before it goes out;
//   - a reply is stored with its usage and with whether committed work
//     counted that usage; the unit that fetched it marks it counted in its
//     own transaction;
//   - a reply that work lost to an interruption fetched is counted by the
//     request that reuses it (llm.<role>.reused), once;
//   - attempts of a dead run that never settled were in flight at the
//     kill (llm.<role>.lost_in_flight, settled when the next run starts).
type storeCache struct {
	ctx   context.Context
	s     *results.Store
	log   *slog.Logger
	runID string
	seq   atomic.Int64 // attempt ids within the run

	flushMu sync.Mutex // held by a flush, so Forget does not race one
	mu      sync.Mutex
	pending map[string]pendingReply
	settled []string // attempt ids whose failure is known, for the next flush
	// units holds the cached responses of the units in flight, read in
	// one query when each starts (keys begin "<unit fingerprint>|").
	units map[string]map[string]results.CachedReply
	kick  chan struct{}
	quit  chan struct{}
	done  chan struct{}
}

// pendingReply is a reply not yet written: its JSON, the attempts it
// settles, and whether a committed unit has counted its usage.
type pendingReply struct {
	raw     json.RawMessage
	ids     []string
	counted bool
}

func newStoreCache(ctx context.Context, s *results.Store, log *slog.Logger, runID string) *storeCache {
	c := &storeCache{ctx: context.WithoutCancel(ctx), s: s, log: log, runID: runID, pending: map[string]pendingReply{},
		units: map[string]map[string]results.CachedReply{},
		kick:  make(chan struct{}, 1), quit: make(chan struct{}), done: make(chan struct{})}
	go c.loop()
	return c
}

// prefetch reads the cached responses of unit fp at once, so its requests
// do not each query the cache. A unit with none stored (see holding) is
// not read: its requests miss at no cost.
func (c *storeCache) prefetch(ctx context.Context, fp string, stored bool) {
	m := map[string]results.CachedReply{}
	if stored {
		var err error
		if m, err = c.s.LLMCache().GetPrefixCounted(ctx, fp); err != nil {
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

// Get implements llm.Cache; the response says whether its usage was
// counted.
func (c *storeCache) Get(key string) (llm.Response, bool, error) {
	c.mu.Lock()
	var raw json.RawMessage
	var counted bool
	p, ok := c.pending[key]
	if ok {
		raw, counted = p.raw, p.counted
	}
	unit, known := c.units[unitOf(key)]
	if !ok && known {
		var r results.CachedReply
		if r, ok = unit[key]; ok {
			raw, counted = r.JSON, r.Counted
		}
	}
	c.mu.Unlock()
	if !ok && !known {
		r, found, err := c.s.LLMCache().GetCounted(c.ctx, key)
		if err != nil || !found {
			return llm.Response{}, false, err
		}
		raw, counted = r.JSON, r.Counted
	}
	var r llm.Response
	if err := json.Unmarshal(raw, &r); err != nil {
		return llm.Response{}, false, nil
	}
	r.Counted = counted
	return r, true, nil
}

// Put implements llm.Cache: the reply waits for the next flush (or the
// commit of the unit that counts it) with the attempts it settles.
func (c *storeCache) Put(key string, resp llm.Response) error {
	b, err := json.Marshal(resp)
	if err != nil {
		return err
	}
	c.mu.Lock()
	c.pending[key] = pendingReply{raw: b, ids: resp.RequestIDs}
	if unit, ok := c.units[unitOf(key)]; ok {
		unit[key] = results.CachedReply{JSON: b}
	}
	n := len(c.pending)
	c.mu.Unlock()
	if n >= cacheFlushAt {
		c.kickFlush()
	}
	return nil
}

// Sending implements llm.Journal: the attempt is recorded, and counted in
// the stage of the unit ctx runs, before the client sends it.
func (c *storeCache) Sending(ctx context.Context, key, role string, attempt int) (string, error) {
	id := fmt.Sprintf("%s.%d", c.runID, c.seq.Add(1))
	stage := ""
	if t, ok := ctx.Value(unitTallyKey{}).(*unitTally); ok {
		stage = t.stage
	}
	err := c.s.RecordAttempt(ctx, results.Attempt{ID: id, RunID: c.runID, StageKey: stage, Role: role, Key: key, N: attempt})
	if err != nil {
		return "", err
	}
	return id, nil
}

// Settled implements llm.Journal.
func (c *storeCache) Settled(ids []string) {
	c.mu.Lock()
	c.settled = append(c.settled, ids...)
	c.mu.Unlock()
}

// countedReplies returns, for a unit's commit, the pending replies among
// keys (written in the unit's transaction, counted); the rest of keys are
// marked counted by key there.
func (c *storeCache) countedReplies(keys []string) []results.Reply {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []results.Reply
	for _, k := range keys {
		if p, ok := c.pending[k]; ok {
			out = append(out, results.Reply{Key: k, JSON: p.raw, Settles: p.ids})
		}
	}
	return out
}

// markCounted records, once a unit's commit succeeded, that the replies
// it counted are counted (so a later request in this process reads them
// as cache hits).
func (c *storeCache) markCounted(keys []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, k := range keys {
		if p, ok := c.pending[k]; ok {
			p.counted = true
			c.pending[k] = p
		}
		if unit, ok := c.units[unitOf(k)]; ok {
			if r, ok := unit[k]; ok {
				r.Counted = true
				unit[k] = r
			}
		}
	}
}

// Forget implements llm.Forgetter: the replies under keys are dropped,
// pending or stored (the judge could not use them; a rerun asks again).
// Their attempts are settled with the flush.
func (c *storeCache) Forget(keys []string) {
	c.flushMu.Lock() // a flush under way may be writing these replies
	defer c.flushMu.Unlock()
	c.mu.Lock()
	for _, k := range keys {
		if p, ok := c.pending[k]; ok {
			c.settled = append(c.settled, p.ids...)
			delete(c.pending, k)
		}
		if unit, ok := c.units[unitOf(k)]; ok {
			delete(unit, k)
		}
	}
	c.mu.Unlock()
	if err := c.s.LLMCache().DeleteReplies(c.ctx, keys); err != nil {
		c.log.Warn("dropping LLM replies from the cache", "err", err)
	}
}

func (c *storeCache) kickFlush() {
	select {
	case c.kick <- struct{}{}:
	default:
	}
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

// flush writes the pending responses and settles the attempts they and the
// failures answer, all or none, in the store's next group transaction (see
// results.LLMCache.PutReplies); they stay readable from pending until
// written.
func (c *storeCache) flush() {
	c.flushMu.Lock()
	defer c.flushMu.Unlock()
	c.mu.Lock()
	batch := make([]results.Reply, 0, len(c.pending))
	for k, p := range c.pending {
		batch = append(batch, results.Reply{Key: k, JSON: p.raw, Counted: p.counted, Settles: p.ids})
	}
	settled := c.settled
	c.settled = nil
	c.mu.Unlock()
	if len(batch) == 0 && len(settled) == 0 {
		return
	}
	if err := c.s.LLMCache().PutReplies(c.ctx, batch, settled); err != nil {
		c.log.Warn("writing the LLM response cache", "err", err)
		c.mu.Lock()
		c.settled = append(c.settled, settled...)
		c.mu.Unlock()
		return
	}
	c.mu.Lock()
	for _, r := range batch {
		if p, ok := c.pending[r.Key]; ok && string(p.raw) == string(r.JSON) && p.counted == r.Counted {
			delete(c.pending, r.Key)
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
