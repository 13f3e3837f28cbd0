package results

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
	"time"
)

// holdStore opens a store whose group commit holds with p, busy: as if a
// group had just committed (p.quiet is an hour).
func holdStore(t *testing.T, p holdParams) *Store {
	t.Helper()
	s, err := Open(filepath.Join(t.TempDir(), "h.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	p.quiet = time.Hour
	s.group.params, s.group.last = p, time.Now()
	return s
}

// write queues one grouped write (a run row) and returns its
// result when it commits.
func write(s *Store, name string) <-chan error {
	done := make(chan error, 1)
	go func() {
		done <- s.writeGrouped(context.Background(), func(ctx context.Context, tx *sql.Tx) error {
			_, err := tx.ExecContext(ctx, `INSERT INTO runs (id, started_at) VALUES (?, 0)`, name)
			return err
		})
	}()
	return done
}

// waitHolding waits until a leader holds its group; the hold is an
// hour, so a leader that does not hold has committed by then instead.
func waitHolding(t *testing.T, s *Store) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		s.group.mu.Lock()
		h := s.group.holding
		s.group.mu.Unlock()
		if h {
			return
		}
	}
	t.Fatal("no leader held its group")
}

// result waits (at most 30 s: a hold of an hour that never ends) for a
// write's outcome.
func result(t *testing.T, done <-chan error) {
	t.Helper()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("a held write never committed")
	}
}

func groupsAndHolds(s *Store) (int64, int64) {
	s.group.mu.Lock()
	defer s.group.mu.Unlock()
	return s.group.groups, s.group.held
}

// TestGroupHoldGathersExpectedCommits: with commits expected, the first
// write's leader holds its group, and the writes that arrive meanwhile
// join it; the group starts once it is full, long before the hold ends.
func TestGroupHoldGathersExpectedCommits(t *testing.T) {
	s := holdStore(t, holdParams{hold: time.Hour, min: 2, full: 4})
	s.ExpectCommits(10)
	first := write(s, "a")
	waitHolding(t, s)
	var rest []<-chan error
	for _, n := range []string{"b", "c", "d"} {
		rest = append(rest, write(s, n))
	}
	result(t, first)
	for _, d := range rest {
		result(t, d)
	}
	if g, h := groupsAndHolds(s); g != 1 || h != 1 {
		t.Errorf("%d groups, %d holds; want the four writes in one group, held once", g, h)
	}
}

// TestGroupHoldEndsWhenCommitsNoLongerExpected: a held group is written
// as soon as fewer commits than the minimum are expected (the last units
// of a stage do not wait out the hold).
func TestGroupHoldEndsWhenCommitsNoLongerExpected(t *testing.T) {
	s := holdStore(t, holdParams{hold: time.Hour, min: 2, full: 64})
	s.ExpectCommits(3)
	done := write(s, "a")
	waitHolding(t, s)
	s.ExpectCommits(-3)
	result(t, done)
	if n := s.ExpectedCommits(); n != 0 {
		t.Errorf("%d commits expected, want 0", n)
	}
}

// TestGroupNoHoldWithoutExpectedCommits: a writer that announces nothing
// (a command, an import) never waits, whatever the hold.
func TestGroupNoHoldWithoutExpectedCommits(t *testing.T) {
	s := holdStore(t, holdParams{hold: time.Hour, min: 2, full: 64})
	s.ExpectCommits(1) // below the minimum
	result(t, write(s, "a"))
	result(t, write(s, "b"))
	if g, h := groupsAndHolds(s); g != 2 || h != 0 {
		t.Errorf("%d groups, %d holds; want two groups, no hold", g, h)
	}
}

// TestGroupNoHoldAfterAQuietSpell: the first group after a quiet spell is
// written at once, commits expected or not (a stage's first claims, which
// its first requests wait for).
func TestGroupNoHoldAfterAQuietSpell(t *testing.T) {
	s := holdStore(t, holdParams{hold: time.Hour, min: 2, full: 64})
	s.group.mu.Lock()
	s.group.last = time.Now().Add(-2 * time.Hour)
	s.group.mu.Unlock()
	s.ExpectCommits(10)
	result(t, write(s, "a"))
	if g, h := groupsAndHolds(s); g != 1 || h != 0 {
		t.Errorf("%d groups, %d holds; want one group, no hold", g, h)
	}
	s.ExpectCommits(-10)
}
