package runner

import (
	"context"
	"iter"
	"sync"
	"sync/atomic"

	"mascot.dev/mascot/results"
)

// claimedUnit is a pending unit on its way to a worker. done is set when
// this run has claimed and started it already (claimAhead), and is closed
// once its worker is through with it.
type claimedUnit struct {
	u      Unit
	stored bool
	done   chan struct{}
}

// claimed says this run claimed and started the unit ahead of its worker.
func (j claimedUnit) claimed() bool { return j.done != nil }

// aheadUnits are the units a stage run claimed ahead, by fingerprint, each
// with the channel its worker closes when it is through. A unit claimed
// ahead is executed outside the in-process sharing of concurrent units
// (inflight: a sweep variant waiting there for this run's claim would
// otherwise wait on itself), so a second unit of the stage with the same
// fingerprint is not claimed ahead, and its worker waits for the first
// before it claims (and then finds the unit done).
type aheadUnits struct{ m sync.Map }

// wait waits until the worker of the unit claimed ahead with fingerprint
// fp, if any, is through with it, or ctx is done.
func (a *aheadUnits) wait(ctx context.Context, fp string) {
	if ch, ok := a.m.Load(fp); ok {
		select {
		case <-ch.(chan struct{}):
		case <-ctx.Done():
		}
	}
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
func (r *run) claimAhead(ctx context.Context, key string, chunks <-chan planChunk, limit int, ahead *aheadUnits) iter.Seq[claimedUnit] {
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
		// the workers take the one before, and hands it over once they
		// have taken that one; nextBatch sizes each batch after the first.
		maxSize := size
		var taken atomic.Int64 // units the workers took, counted by yield's loop below
		ready := make(chan []claimedUnit)
		stop := make(chan struct{})
		defer close(stop)
		go func() {
			defer close(ready)
			var batch []claimedUnit
			var handed int64 // units sent on ready
			flush := func() bool {
				if len(batch) == 0 {
					return true
				}
				before := taken.Load()
				r.claimBatch(ctx, key, batch, ahead)
				after := taken.Load()
				size = nextBatch(size, maxSize, int(after-before), handed > 0 && after == handed)
				handed += int64(len(batch))
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
					if len(batch) >= size && !flush() {
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
				taken.Add(1)
			}
		}
	}
}

// nextBatch is the size of the batch to claim after one of size units
// whose write took as long as the workers took took units; starved says
// they had taken every unit handed to them by the time it was written.
// A batch is about twice what the workers take while one is written (at
// least 2, at most most): as many as keep them busy until the next is
// claimed and no more, so that a stage whose units take long holds few
// claims it has not begun (another process on the same database waits
// for those). Workers that were starved get most at once; workers busy
// with their units (took few) get half the batch before, not less: units
// whose requests return together free the workers in waves, and a batch
// sized by the lull before a wave leaves the wave's workers idle while
// the claimer doubles its way back up, a claim's write at a time.
func nextBatch(size, most, took int, starved bool) int {
	if starved {
		return most
	}
	return max(2, size/2, min(most, 2*took))
}

// claimBatch claims and starts the units of batch for this run, marking
// those that are now its own (and recording them in ahead). Nothing is
// marked when the write fails, or once ctx is done: their workers claim
// them one at a time (and report the error). A unit whose fingerprint was
// claimed ahead already (the same inputs twice in one stage) is left to
// its worker.
func (r *run) claimBatch(ctx context.Context, key string, batch []claimedUnit, ahead *aheadUnits) {
	if ctx.Err() != nil {
		return
	}
	var refs []results.Unit
	var idx []int
	seen := map[string]bool{}
	for i, j := range batch {
		fp := j.u.Fingerprint
		if _, dup := ahead.m.Load(fp); dup || seen[fp] {
			continue
		}
		seen[fp] = true
		refs, idx = append(refs, r.unitRef(key, j.u)), append(idx, i)
	}
	if len(refs) == 0 {
		return
	}
	holders, err := r.opts.Store.ClaimAndStartUnits(ctx, refs)
	if err != nil {
		return
	}
	for k, i := range idx {
		if holders[k] == r.env.RunID {
			done := make(chan struct{})
			batch[i].done = done
			ahead.m.Store(batch[i].u.Fingerprint, done)
		}
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
