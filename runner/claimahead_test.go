package runner

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"mascot.dev/mascot/results"
	"mascot.dev/mascot/schema"
)

// TestClaimAheadClaimsInBatches: with 16 units in flight the units come
// out already claimed and started for the run (in batches of four), in
// the order planned, across chunk boundaries; a unit another live run
// holds comes out unclaimed (its worker waits for it); a stage with 4 in
// flight claims nothing ahead, nor does one whose context is done.
func TestClaimAheadClaimsInBatches(t *testing.T) {
	ctx := context.Background()
	r, store := claimingRun(t, "other")
	if h, err := store.ClaimUnit(ctx, "u5", "other"); err != nil || h != "other" {
		t.Fatalf("claiming u5 for the other run: %q, %v", h, err)
	}
	chunks := func(sizes ...int) <-chan planChunk {
		ch := make(chan planChunk, len(sizes))
		n := 0
		for _, size := range sizes {
			var c planChunk
			for range size {
				c.pending = append(c.pending, Unit{Fingerprint: fmt.Sprintf("u%d", n)})
				n++
			}
			ch <- c
		}
		close(ch)
		return ch
	}
	var got []claimedUnit
	for j := range r.claimAhead(ctx, "st", chunks(3, 6, 1), 16, &aheadUnits{}) {
		got = append(got, j)
	}
	if len(got) != 10 {
		t.Fatalf("%d units out of 10", len(got))
	}
	for i, j := range got {
		if want := fmt.Sprintf("u%d", i); j.u.Fingerprint != want {
			t.Fatalf("unit %d is %s, want %s", i, j.u.Fingerprint, want)
		}
		if want := i != 5; j.claimed() != want {
			t.Errorf("unit %s claimed ahead: %v, want %v", j.u.Fingerprint, j.claimed(), want)
		}
		if !j.stored {
			t.Errorf("unit %s: stored false for a chunk without a stored set", j.u.Fingerprint)
		}
	}
	var claimed, running int
	if err := store.Reader().QueryRow(`SELECT COUNT(*) FROM unit_claims WHERE run_id = 'mine'`).Scan(&claimed); err != nil {
		t.Fatal(err)
	}
	if err := store.Reader().QueryRow(`SELECT COUNT(*) FROM units WHERE state = 'running' AND stage_key = 'st'`).Scan(&running); err != nil {
		t.Fatal(err)
	}
	if claimed != 9 || running != 9 {
		t.Fatalf("%d claims and %d running units for this run, want 9 and 9", claimed, running)
	}

	for j := range r.claimAhead(ctx, "st", chunks(12), 4, &aheadUnits{}) {
		if j.claimed() {
			t.Fatalf("unit %s claimed ahead with 4 units in flight", j.u.Fingerprint)
		}
	}
	done, cancel := context.WithCancel(ctx)
	cancel()
	n := 0
	for j := range r.claimAhead(done, "st", chunks(12), 16, &aheadUnits{}) {
		n++
		if j.claimed() {
			t.Fatalf("unit %s claimed ahead after the stage was interrupted", j.u.Fingerprint)
		}
	}
	if n != 12 {
		t.Fatalf("%d of 12 units out of an interrupted stage's plan", n)
	}
}

// TestClaimAheadLeavesADuplicateToItsWorker: a stage that lists the same
// fingerprint twice gets the first claimed ahead and the second not (in
// the same batch or a later one); the second's worker waits for the
// first's until it is through.
func TestClaimAheadLeavesADuplicateToItsWorker(t *testing.T) {
	ctx := context.Background()
	r, _ := claimingRun(t)
	ch := make(chan planChunk, 1)
	var c planChunk
	for _, fp := range []string{"a", "b", "a", "c", "d", "a"} { // batches of 2: [a b] [a c] [d a]
		c.pending = append(c.pending, Unit{Fingerprint: fp})
	}
	ch <- c
	close(ch)
	var ahead aheadUnits
	var got []claimedUnit
	for j := range r.claimAhead(ctx, "st", ch, 8, &ahead) {
		got = append(got, j)
	}
	want := []bool{true, true, false, true, true, false}
	for i, j := range got {
		if j.claimed() != want[i] {
			t.Errorf("unit %d (%s) claimed ahead: %v, want %v", i, j.u.Fingerprint, j.claimed(), want[i])
		}
	}
	waited := make(chan struct{})
	go func() {
		ahead.wait(ctx, "a")
		close(waited)
	}()
	select {
	case <-waited:
		t.Fatal("the duplicate did not wait for the unit claimed ahead")
	case <-time.After(50 * time.Millisecond):
	}
	close(got[0].done)
	<-waited
	ahead.wait(ctx, "z") // never claimed ahead: returns at once
}

// TestClaimAheadHoldsFewClaimsForSlowWorkers: when the workers take units
// slowly (units that take long), the batches after the first shrink to
// what the workers take while one is claimed, so the run holds few claims
// on units it has not begun: another process on the same database waits
// for those.
func TestClaimAheadHoldsFewClaimsForSlowWorkers(t *testing.T) {
	r, store := claimingRun(t)
	ch := make(chan planChunk, 1)
	var c planChunk
	for i := range 300 {
		c.pending = append(c.pending, Unit{Fingerprint: fmt.Sprintf("u%d", i)})
	}
	ch <- c
	close(ch)
	taken := 0
	for range r.claimAhead(context.Background(), "st", ch, 256, &aheadUnits{}) { // batches of up to 64
		// A worker busy with its unit: long beside a claim's write, even
		// on a loaded machine (a batch is twice what was taken during one).
		time.Sleep(10 * time.Millisecond)
		if taken++; taken == 100 {
			break
		}
	}
	var claimed int
	if err := store.Reader().QueryRow(`SELECT COUNT(*) FROM unit_claims WHERE run_id = 'mine'`).Scan(&claimed); err != nil {
		t.Fatal(err)
	}
	// Batches of 64 throughout would hold 92 more than were taken here
	// (the rest of the second batch and all of the third).
	if claimed < taken || claimed-taken > 48 {
		t.Fatalf("%d units claimed when the workers had taken %d: want at least those and at most 48 more", claimed, taken)
	}
}

// claimingRun is a run "mine" of stage "st" on a new store, beside the live
// runs others (all owned by this process).
func claimingRun(t *testing.T, others ...string) (*run, *results.Store) {
	t.Helper()
	store, err := results.Open(filepath.Join(t.TempDir(), "m.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	for _, id := range append([]string{"mine"}, others...) {
		if err := store.CreateRun(context.Background(), results.Owned(results.Run{ID: id, Status: results.RunRunning,
			StartedAt: time.Now()})); err != nil {
			t.Fatal(err)
		}
	}
	kinds := map[string]Kind{"st": {KindSpec: schema.KindSpec{Name: "candidates"}}}
	return &run{opts: Options{Store: store}, env: &Env{RunID: "mine"}, kinds: kinds}, store
}

// TestNextBatch: starved workers get the largest batch at once; busy ones
// get twice what they took while the batch before was written, but never
// less than half of it (units that free their workers in waves), and never
// below 2 or above the most.
func TestNextBatch(t *testing.T) {
	for _, c := range []struct {
		size, most, took int
		starved          bool
		want             int
	}{
		{2, 64, 2, true, 64},   // a batch of 2 ran out before the next was written
		{64, 64, 0, false, 32}, // a lull: halve, do not fall to 2
		{32, 64, 0, false, 16},
		{2, 64, 0, false, 2},
		{3, 64, 0, false, 2},
		{8, 64, 10, false, 20},
		{16, 64, 40, false, 64},
		{4, 4, 0, true, 4},
	} {
		if got := nextBatch(c.size, c.most, c.took, c.starved); got != c.want {
			t.Errorf("nextBatch(%d, %d, %d, %v) = %d, want %d", c.size, c.most, c.took, c.starved, got, c.want)
		}
	}
}
