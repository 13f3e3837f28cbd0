package results

import (
	"context"
	"database/sql"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// Group commit: unit transactions that arrive while the writer is busy
// are written together in one SQLite transaction, each inside its own
// SAVEPOINT, so that concurrent units do not queue one transaction each
// for the single writer connection. A unit whose function fails is rolled
// back to its savepoint alone; the others commit. The counters and latency
// histograms the units add are summed over the group and written once,
// before the group commits.
//
// The statements of a group run under a context without cancellation (the
// caller's context is checked once, when its turn comes): go-sqlite3 runs
// a statement whose context can be canceled on a goroutine of its own, and
// a cancellation interrupts it with sqlite3_interrupt, which rolls back the
// whole transaction, the other units' writes included.

// groupReq is one caller's write, waiting for its group.
type groupReq struct {
	ctx  context.Context
	fn   func(context.Context, *sql.Tx, *sums) error
	done chan error
}

// grouper queues writes; running says a leader is writing a group.
type grouper struct {
	mu      sync.Mutex
	queue   []*groupReq
	running bool

	// See grouphold.go.
	params   holdParams
	expected atomic.Int64
	holding  bool          // a leader holds its group (mu)
	arrived  chan struct{} // wakes it; capacity 1
	last     time.Time     // when the last group committed (mu)
	held     int64         // times a leader held, for tests (mu)
	groups   int64         // groups written, for tests (mu)
}

// writeGrouped runs fn in a write transaction shared with the writes that
// queued meanwhile, and returns once that transaction has committed (or
// fn's own error, after undoing what fn wrote). fn gets ctx without its
// cancellation, for its statements.
func (s *Store) writeGrouped(ctx context.Context, fn func(context.Context, *sql.Tx) error) error {
	return s.writeGroupedSums(ctx, func(ctx context.Context, tx *sql.Tx, _ *sums) error { return fn(ctx, tx) })
}

// writeGroupedSums is writeGrouped for a write that also adds counters
// (to the sums it is given, kept only if fn succeeds).
func (s *Store) writeGroupedSums(ctx context.Context, fn func(context.Context, *sql.Tx, *sums) error) error {
	req := &groupReq{ctx: ctx, fn: fn, done: make(chan error, 1)}
	s.group.mu.Lock()
	s.group.queue = append(s.group.queue, req)
	if s.group.holding {
		s.group.wake()
	}
	lead := !s.group.running
	s.group.running = true
	s.group.mu.Unlock()
	if lead {
		s.leadGroups()
	}
	return <-req.done
}

// leadGroups writes one group, then hands the lead to a new goroutine if
// more writes queued meanwhile (so no caller leads for long).
//
// The leader first yields once: the goroutines already runnable (replies
// that arrived together, the other requests of a unit about to record
// their attempts) queue their writes before the group is taken, so a
// group is one transaction for more of them. In the candidates benchmark
// (64 requests in flight) that made groups 3.5 times larger (0.56 -> 0.16
// transactions per request) at the cost of one scheduler pass.
func (s *Store) leadGroups() {
	runtime.Gosched()
	s.hold()
	s.group.mu.Lock()
	batch := s.group.queue
	s.group.queue = nil
	s.group.groups++
	s.group.mu.Unlock()
	s.writeGroup(batch)
	s.group.mu.Lock()
	s.group.last = time.Now()
	more := len(s.group.queue) > 0
	s.group.running = more
	s.group.mu.Unlock()
	if more {
		go s.leadGroups()
	}
}

func (s *Store) writeGroup(batch []*groupReq) {
	errs := make([]error, len(batch))
	err := s.writeTx(context.Background(), func(tx *sql.Tx) error {
		var total, unit sums
		if len(batch) == 1 {
			// Nothing else to keep: a failure rolls back the transaction.
			r := batch[0]
			if err := r.ctx.Err(); err != nil {
				return err
			}
			if err := r.fn(context.WithoutCancel(r.ctx), tx, &unit); err != nil {
				return err
			}
			return unit.write(tx)
		}
		// The savepoint statements stay prepared in the connection's cache
		// (tx.Exec without arguments would parse them every time).
		var sp [3]*sql.Stmt
		for k, q := range []string{`SAVEPOINT unit`, `ROLLBACK TO unit`, `RELEASE unit`} {
			st, err := tx.Prepare(q)
			if err != nil {
				return fmt.Errorf("preparing savepoints: %w", err)
			}
			defer st.Close()
			sp[k] = st
		}
		for i, r := range batch {
			if errs[i] = r.ctx.Err(); errs[i] != nil {
				continue
			}
			if _, err := sp[0].Exec(); err != nil {
				return fmt.Errorf("opening a savepoint: %w", err)
			}
			unit.reset()
			if errs[i] = r.fn(context.WithoutCancel(r.ctx), tx, &unit); errs[i] != nil {
				if _, err := sp[1].Exec(); err != nil {
					return fmt.Errorf("rolling back a unit: %w", err)
				}
			} else {
				total.merge(&unit)
			}
			if _, err := sp[2].Exec(); err != nil {
				return fmt.Errorf("releasing a savepoint: %w", err)
			}
		}
		return total.write(tx)
	})
	for i, r := range batch {
		if errs[i] == nil {
			errs[i] = err
		}
		r.done <- errs[i]
	}
}
