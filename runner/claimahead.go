package runner

import (
	"context"
	"iter"

	"mascot.dev/mascot/results"
)

// claimedUnit is a pending unit on its way to a worker; claimed says this
// run has claimed and started it already.
type claimedUnit struct {
	u       Unit
	stored  bool
	claimed bool
}

// claimAheadMax bounds the units claimed in one write.
const claimAheadMax = 64

// claimAhead yields the pending units of chunks, claimed a batch ahead of
// the workers: while the workers take one batch, the next is claimed and
// started in one write (results.ClaimAndStartUnits). Claimed one at a
// time, each unit waited for a group commit of the store's before its
// requests went out, and in a store whose indexes are large, where a
// group takes longer to write, the endpoint's slots stood idle meanwhile
// (docs/benchmarks.md). A stage with few units in flight (limit/4 below
// 2) claims each unit in its worker, as does a unit whose batch could not
// be claimed, or that another run holds (the worker waits for it).
func (r *run) claimAhead(ctx context.Context, key string, chunks <-chan planChunk, limit int) iter.Seq[claimedUnit] {
	return func(yield func(claimedUnit) bool) {
		size := min(claimAheadMax, limit/4)
		if size < 2 {
			for c := range chunks {
				for _, u := range c.pending {
					if !yield(claimedUnit{u: u, stored: c.stored == nil || c.stored[u.Fingerprint]}) {
						return
					}
				}
			}
			return
		}
		// The claimer runs a batch ahead: it claims the next batch while
		// the one before waits in ready for the workers.
		ready := make(chan []claimedUnit, 1)
		stop := make(chan struct{})
		defer close(stop)
		go func() {
			defer close(ready)
			var batch []claimedUnit
			flush := func() bool {
				if len(batch) == 0 {
					return true
				}
				r.claimBatch(ctx, key, batch)
				select {
				case ready <- batch:
				case <-stop:
					return false
				}
				batch = nil
				return true
			}
			for c := range chunks {
				for _, u := range c.pending {
					batch = append(batch, claimedUnit{u: u, stored: c.stored == nil || c.stored[u.Fingerprint]})
					if len(batch) == size && !flush() {
						drain(chunks)
						return
					}
				}
			}
			flush()
		}()
		for batch := range ready {
			for _, j := range batch {
				if !yield(j) {
					return
				}
			}
		}
	}
}

// claimBatch claims and starts the units of batch for this run, marking
// those that are now its own. Nothing is marked when the write fails, or
// once ctx is done: their workers claim them one at a time (and report
// the error).
func (r *run) claimBatch(ctx context.Context, key string, batch []claimedUnit) {
	if ctx.Err() != nil {
		return
	}
	refs := make([]results.Unit, len(batch))
	for i, j := range batch {
		refs[i] = r.unitRef(key, j.u)
	}
	holders, err := r.opts.Store.ClaimAndStartUnits(ctx, refs)
	if err != nil {
		return
	}
	for i := range batch {
		batch[i].claimed = holders[i] == r.env.RunID
	}
}

// unitRef is unit u of stage key as the store knows it.
func (r *run) unitRef(key string, u Unit) results.Unit {
	return results.Unit{Fingerprint: u.Fingerprint, Kind: r.kinds[key].Name, StageKey: key, RunID: r.env.RunID}
}

// drain reads chunks to their end, so that the planning that sends them
// is not left blocked.
func drain(chunks <-chan planChunk) {
	for range chunks {
	}
}
