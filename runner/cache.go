package runner

import (
	"context"
	"encoding/json"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"mascot.dev/mascot/llm"
	"mascot.dev/mascot/results"
)

// Write-behind of the response cache: responses are written in batches,
// every cacheFlushEvery or as soon as cacheFlushAt are pending, so that
// requests do not queue one by one for SQLite's single writer.
//
// A reply of a unit still in flight waits up to cacheHoldInFlight for its
// unit's commit, which writes it counted with the unit's rows: written
// by the write-behind first, each reply was written twice (inserted
// uncounted, then updated counted by the commit), and the candidates
// stage spent about a tenth of its writer's CPU on that. A crash loses
// at most the replies of the last cacheHoldInFlight (their units are not
// committed either, and rerun them); their attempts stay recorded, open,
// and the next run counts them as lost in flight.
const (
	cacheFlushEvery   = 100 * time.Millisecond
	cacheFlushAt      = 512
	cacheHoldInFlight = time.Second
)

// storeCache keeps LLM responses in SQLite so reruns replay exactly, and
// journals every attempt before it is sent (llm.Journal), so a run's LLM
// counters stay exact however often its process is killed:
//   - an attempt is recorded before it goes out, in the run's journal file
//     (results.AttemptLog: an append, which the request does not wait on a
//     transaction for), and counted when its outcome is stored;
//   - a reply is stored with its usage and with whether committed work
//     counted that usage; the unit that fetched it marks it counted in its
//     own transaction;
//   - a reply that work lost to an interruption fetched is counted by the
//     request that reuses it (llm.<role>.reused), once;
//   - attempts of a dead run that never settled were in flight at the
//     kill (llm.<role>.lost_in_flight, settled when the next run starts).
type storeCache struct {
	ctx     context.Context
	s       *results.Store
	log     *slog.Logger
	runID   string
	seq     atomic.Int64 // attempt ids within the run
	journal *results.AttemptLog

	flushMu sync.Mutex // held by a flush, so Forget does not race one
	mu      sync.Mutex
	pending map[string]pendingReply
	held    int      // pending replies the last flush left to their units
	settled []string // attempt ids whose failure is known, for the next flush
	// open holds the attempts recorded and not yet settled in the store
	// (by id): their outcome is pending, in flight, or being written.
	open map[string]results.Attempt
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
	at      time.Time // when it arrived (see cacheHoldInFlight)
}

func newStoreCache(ctx context.Context, s *results.Store, log *slog.Logger, runID string) *storeCache {
	c := &storeCache{ctx: context.WithoutCancel(ctx), s: s, log: log, runID: runID, pending: map[string]pendingReply{},
		journal: s.AttemptLog(runID), open: map[string]results.Attempt{},
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
	if r.Raw == nil && r.Choices != nil {
		r.Raw = append([]string(nil), r.Choices...) // stored without it: the same (see Put)
	}
	r.Counted = counted
	return r, true, nil
}

// Put implements llm.Cache: the reply waits for the next flush (or the
// commit of the unit that counts it) with the attempts it settles.
func (c *storeCache) Put(key string, resp llm.Response) {
	if slices.Equal(resp.Raw, resp.Choices) {
		resp.Raw = nil // the choices had no <think> block: Get restores it
	}
	b := llm.AppendResponseJSON(nil, resp) // json.Marshal's bytes, in one pass
	c.mu.Lock()
	c.pending[key] = pendingReply{raw: b, ids: resp.RequestIDs, at: time.Now()}
	if unit, ok := c.units[unitOf(key)]; ok {
		unit[key] = results.CachedReply{JSON: b}
	}
	n := len(c.pending) - c.held
	c.mu.Unlock()
	if n >= cacheFlushAt {
		c.kickFlush()
	}
}

// countedReplies returns, for a unit's commit, the pending replies among
// keys (written in the unit's transaction, counted, with the attempts
// they settle); the rest of keys are marked counted by key there.
func (c *storeCache) countedReplies(keys []string) []results.Reply {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []results.Reply
	for _, k := range keys {
		if p, ok := c.pending[k]; ok {
			out = append(out, results.Reply{Key: k, JSON: p.raw, Settles: c.attempts(p.ids)})
		}
	}
	return out
}

// markCounted records, once a unit's commit succeeded, that the replies
// it counted are counted (a later request in this process reads them as
// cache hits). Those the commit wrote (written, from countedReplies) are
// stored, with their attempts settled: the write-behind drops them
// instead of writing them again.
func (c *storeCache) markCounted(keys []string, written []results.Reply) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, r := range written {
		if p, ok := c.pending[r.Key]; ok && string(p.raw) == string(r.JSON) {
			delete(c.pending, r.Key)
		}
		c.settledIn(r.Settles)
	}
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

// unitOf is the unit part of a cache key ("<fingerprint>|role|...").
func unitOf(key string) string {
	if i := strings.IndexByte(key, '|'); i >= 0 {
		return key[:i]
	}
	return key
}
