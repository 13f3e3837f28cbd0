package results

import (
	"context"
	"fmt"
	"os"
	"time"
)

// HeartbeatEvery is how often a run's owner refreshes its heartbeat;
// after StaleAfter without one, readers take the owner for dead. A run
// whose process died reads as interrupted and ended at its last
// heartbeat, so the heartbeat is frequent enough for that duration to be
// the real one (within a second); staleness is judged on a minute, far
// above a heartbeat delayed by a busy writer.
const (
	HeartbeatEvery = time.Second
	StaleAfter     = time.Minute
)

// Owned returns r with this process recorded as its owner, heartbeat now.
func Owned(r Run) Run {
	r.OwnerPID, r.OwnerHost, r.HeartbeatAt = os.Getpid(), thisHost(), time.Now()
	return r
}

// Heartbeat records that the owner of run id is alive.
func (s *Store) Heartbeat(ctx context.Context, id string) error {
	if _, err := s.w.ExecContext(ctx, `UPDATE runs SET heartbeat_at = ? WHERE id = ?`, nowMS(), id); err != nil {
		return fmt.Errorf("recording the heartbeat of run %s: %w", id, err)
	}
	return nil
}

// ownerGone reports whether the process that owns r is known to be gone:
// its pid no longer exists on this host, or its heartbeat is stale.
func (r Run) ownerGone(now time.Time) bool {
	if r.OwnerPID <= 0 {
		return false // no owner recorded (a detached run): nothing to tell
	}
	if r.OwnerHost == thisHost() && !processAlive(r.OwnerPID) {
		return true
	}
	return !r.HeartbeatAt.IsZero() && now.Sub(r.HeartbeatAt) > StaleAfter
}

// Live reports whether r is a running run whose owner is alive.
func (r Run) Live(now time.Time) bool {
	return r.Status == RunRunning && !r.ownerGone(now)
}

func thisHost() string {
	h, err := os.Hostname()
	if err != nil {
		return "unknown"
	}
	return h
}
