package results

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
)

// Group commit: unit transactions that arrive while the writer is busy
// are written together in one SQLite transaction, each inside its own
// SAVEPOINT, so that concurrent units do not queue one transaction each
// for the single writer connection. A unit whose function fails is rolled
// back to its savepoint alone; the others commit.

// groupReq is one caller's write, waiting for its group.
type groupReq struct {
	ctx  context.Context
	fn   func(*sql.Tx) error
	done chan error
}

// grouper queues writes; running says a leader is writing a group.
type grouper struct {
	mu      sync.Mutex
	queue   []*groupReq
	running bool
}

// writeGrouped runs fn in a write transaction shared with the writes that
// queued meanwhile, and returns once that transaction has committed (or
// fn's own error, after undoing what fn wrote).
func (s *Store) writeGrouped(ctx context.Context, fn func(*sql.Tx) error) error {
	req := &groupReq{ctx: ctx, fn: fn, done: make(chan error, 1)}
	s.group.mu.Lock()
	s.group.queue = append(s.group.queue, req)
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
func (s *Store) leadGroups() {
	s.group.mu.Lock()
	batch := s.group.queue
	s.group.queue = nil
	s.group.mu.Unlock()
	s.writeGroup(batch)
	s.group.mu.Lock()
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
		for i, r := range batch {
			if errs[i] = r.ctx.Err(); errs[i] != nil {
				continue
			}
			if _, err := tx.Exec(`SAVEPOINT unit`); err != nil {
				return fmt.Errorf("opening a savepoint: %w", err)
			}
			if errs[i] = r.fn(tx); errs[i] != nil {
				if _, err := tx.Exec(`ROLLBACK TO unit`); err != nil {
					return fmt.Errorf("rolling back a unit: %w", err)
				}
			}
			if _, err := tx.Exec(`RELEASE unit`); err != nil {
				return fmt.Errorf("releasing a savepoint: %w", err)
			}
		}
		return nil
	})
	for i, r := range batch {
		if errs[i] == nil {
			errs[i] = err
		}
		r.done <- errs[i]
	}
}
