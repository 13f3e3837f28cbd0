package results

import (
	"time"
)

// Holding a group: while a runner says that many unit commits are on
// their way (ExpectCommits), a leader that finds fewer than groupFull
// writes queued holds its group up to groupHold for more. Each commit
// writes every page its transaction changed to the WAL, and the units of
// one transaction share pages (the rows appended to the same tables, the
// run's tallies, the leaves of a run's indexes), so fewer, larger groups
// write fewer pages per unit (what it saved, and cost in wall time, is in
// docs/benchmarks.md).
//
// The hold costs each unit up to groupHold before its claim and again
// before its commit. Below groupHoldMin expected commits there is no hold:
// a stage with few units in flight would leave its endpoint idle meanwhile,
// and the last units of a stage commit as soon as they come. Nor is there
// one after groupQuiet without a group: the first claims of a stage, which
// its first requests wait for, are written at once. The count is the
// store's: a store whose runner announces nothing (a command's, an
// import's, a viewer's in a process of its own) never waits, while in the
// process of a running stage any write may join a held group.
const (
	groupHold    = 20 * time.Millisecond
	groupHoldMin = 64
	groupFull    = 64
	groupQuiet   = 100 * time.Millisecond
)

// holdParams are a store's hold settings (the constants; tests set others).
type holdParams struct {
	hold  time.Duration
	min   int64
	full  int
	quiet time.Duration
}

var defaultHold = holdParams{hold: groupHold, min: groupHoldMin, full: groupFull, quiet: groupQuiet}

// ExpectCommits tells the group commit that n more unit commits (or
// failures) are on their way, n < 0 that that many have been queued or
// will not come. The runner calls it with 1 when a unit starts and -1 just
// before its CommitUnit or FailUnit; a count left above zero only makes
// groups wait up to groupHold.
func (s *Store) ExpectCommits(n int) {
	s.group.expected.Add(int64(n))
	if n < 0 {
		s.group.wake()
	}
}

// ExpectedCommits is the number of unit commits announced by
// ExpectCommits and not yet queued: 0 once a runner is done.
func (s *Store) ExpectedCommits() int64 { return s.group.expected.Load() }

// hold waits, before the leader takes its group, while the store expects
// enough commits and the queue is not full, up to the hold time.
func (s *Store) hold() {
	p := s.group.params
	if p.hold <= 0 || s.group.expected.Load() < p.min {
		return
	}
	var t *time.Timer
	defer func() {
		s.group.holding = false
		s.group.mu.Unlock()
		if t != nil {
			t.Stop()
		}
	}()
	s.group.mu.Lock()
	if time.Since(s.group.last) >= p.quiet {
		return
	}
	t = time.NewTimer(p.hold)
	for len(s.group.queue) < p.full && s.group.expected.Load() >= p.min {
		if !s.group.holding {
			s.group.holding = true
			s.group.held++
		}
		s.group.mu.Unlock()
		select {
		case <-t.C:
			s.group.mu.Lock()
			return
		case <-s.group.arrived: // a stale signal only makes the loop look again
		}
		s.group.mu.Lock()
	}
}

// wake tells a holding leader to look again (a write arrived, or fewer
// commits are expected).
func (g *grouper) wake() {
	select {
	case g.arrived <- struct{}{}:
	default:
	}
}
