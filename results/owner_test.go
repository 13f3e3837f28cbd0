package results

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestRunOwnerLiveness: a running run reads as interrupted once its owner
// is known to be gone (a stale heartbeat from another host); a fresh
// heartbeat, or no recorded owner (a detached run), keeps it running.
func TestRunOwnerLiveness(t *testing.T) {
	s := openTemp(t)
	ctx := context.Background()
	now := time.Now()
	for _, c := range []struct {
		id   string
		pid  int
		host string
		beat time.Time
		want string
	}{
		{"stale", 4242, "elsewhere", now.Add(-2 * StaleAfter), RunInterrupted},
		{"fresh", 4242, "elsewhere", now, RunRunning},
		{"detached", 0, "", time.Time{}, RunRunning},
	} {
		if err := s.CreateRun(ctx, Run{ID: c.id, Status: RunRunning, StartedAt: now.Add(-time.Hour),
			OwnerPID: c.pid, OwnerHost: c.host, HeartbeatAt: c.beat}); err != nil {
			t.Fatal(err)
		}
		r, err := s.GetRun(ctx, c.id)
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != c.want {
			t.Errorf("run %s reads %q, want %q", c.id, r.Status, c.want)
		}
	}
	if err := s.Heartbeat(ctx, "stale"); err != nil {
		t.Fatal(err)
	}
	if r, err := s.GetRun(ctx, "stale"); err != nil || r.Status != RunRunning {
		t.Fatalf("after a heartbeat the run reads %q (%v), want running", r.Status, err)
	}
}

// TestClaimTakeover: a unit claimed by a live run is refused to another
// run; once the claimer's heartbeat is stale, the claim is taken over.
func TestClaimTakeover(t *testing.T) {
	s := openTemp(t)
	ctx := context.Background()
	liveElsewhere(t, s, "a", "b")
	if h, err := s.ClaimUnit(ctx, "u", "a"); err != nil || h != "a" {
		t.Fatalf("first claim: holder %q, %v", h, err)
	}
	if h, err := s.ClaimUnit(ctx, "u", "b"); err != nil || h != "a" {
		t.Fatalf("claim while a lives: holder %q, %v; want a", h, err)
	}
	if _, err := s.w.Exec(`UPDATE runs SET heartbeat_at = ? WHERE id = 'a'`, time.Now().Add(-2*StaleAfter).UnixMilli()); err != nil {
		t.Fatal(err)
	}
	if h, err := s.ClaimUnit(ctx, "u", "b"); err != nil || h != "b" {
		t.Fatalf("claim after a went stale: holder %q, %v; want b", h, err)
	}
}

// TestKilledRunSortsByTheTimeItRan: sorted by duration, an interrupted
// run (owner gone, last heartbeat 10 min after its start, started 5 h
// ago) ranks by its 10 minutes, not by the 5 hours since it started; the
// limit applies after that order.
func TestKilledRunSortsByTheTimeItRan(t *testing.T) {
	s := openTemp(t)
	ctx := context.Background()
	now := time.Now()
	start := now.Add(-5 * time.Hour)
	if err := s.CreateRun(ctx, Run{ID: "killed", Status: RunRunning, StartedAt: start,
		OwnerPID: 4242, OwnerHost: "elsewhere", HeartbeatAt: start.Add(10 * time.Minute)}); err != nil {
		t.Fatal(err)
	}
	for id, d := range map[string]time.Duration{"long": time.Hour, "short": time.Minute} {
		if err := s.CreateRun(ctx, Run{ID: id, Status: RunDone, StartedAt: now.Add(-2 * time.Hour),
			FinishedAt: now.Add(-2*time.Hour + d)}); err != nil {
			t.Fatal(err)
		}
	}
	ids := func(f RunFilter) []string {
		runs, err := s.ListRuns(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range runs {
			out = append(out, r.ID)
		}
		return out
	}
	if got := ids(RunFilter{Sort: "duration"}); strings.Join(got, ",") != "long,killed,short" {
		t.Fatalf("by duration, longest first: %v, want long,killed,short", got)
	}
	if got := ids(RunFilter{Sort: "duration", Asc: true, Limit: 2}); strings.Join(got, ",") != "short,killed" {
		t.Fatalf("by duration, shortest two: %v, want short,killed", got)
	}
}
