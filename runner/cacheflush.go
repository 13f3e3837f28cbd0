package runner

import (
	"time"

	"mascot.dev/mascot/results"
)

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
			c.flush(true)
			return
		case <-t.C:
		case <-c.kick:
		}
		c.flush(false)
	}
}

// flush writes the pending responses and settles the attempts they and the
// failures answer, all or none, in the store's next group transaction (see
// results.LLMCache.PutReplies); they stay readable from pending until
// written. Unless all, it leaves the replies of units in flight younger
// than cacheHoldInFlight to their units' commits.
func (c *storeCache) flush(all bool) {
	c.flushMu.Lock()
	defer c.flushMu.Unlock()
	c.mu.Lock()
	batch := make([]results.Reply, 0, len(c.pending))
	now := time.Now()
	c.held = 0
	for k, p := range c.pending {
		if !all && !p.counted && now.Sub(p.at) < cacheHoldInFlight {
			if _, inFlight := c.units[unitOf(k)]; inFlight {
				c.held++
				continue
			}
		}
		batch = append(batch, results.Reply{Key: k, JSON: p.raw, Counted: p.counted, Settles: c.attempts(p.ids)})
	}
	ids := c.settled
	settled := c.attempts(ids)
	c.settled = nil
	c.mu.Unlock()
	if len(batch) == 0 && len(settled) == 0 {
		return
	}
	if err := c.s.LLMCache().PutReplies(c.ctx, batch, settled); err != nil {
		c.log.Warn("writing the LLM response cache", "err", err)
		c.mu.Lock()
		c.settled = append(c.settled, ids...)
		c.mu.Unlock()
		return
	}
	c.mu.Lock()
	for _, r := range batch {
		if p, ok := c.pending[r.Key]; ok && string(p.raw) == string(r.JSON) && p.counted == r.Counted {
			delete(c.pending, r.Key)
		}
		c.settledIn(r.Settles)
	}
	c.settledIn(settled)
	c.mu.Unlock()
}

// close writes what is pending and stops the writer. When every attempt
// the run recorded is settled in the store, its journal goes; otherwise it
// stays for the next run to count what is open as lost.
func (c *storeCache) close() error {
	select {
	case <-c.quit:
	default:
		close(c.quit)
	}
	<-c.done
	c.mu.Lock()
	open := len(c.open)
	c.mu.Unlock()
	if open > 0 {
		c.log.Warn("LLM attempts left unsettled: the next run counts them as lost in flight", "attempts", open)
		return nil
	}
	if err := c.journal.Finish(c.ctx); err != nil {
		c.log.Warn("removing the attempts journal", "err", err)
	}
	return nil
}
