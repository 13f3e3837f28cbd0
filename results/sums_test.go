package results

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"
)

// Units committing concurrently share group transactions, whose counters
// are summed and written once: only the units that commit (done or
// failed) count, a unit whose callback fails adds nothing.
func TestGroupedCommitsCountOnlyCommittedUnits(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	mustRun(t, s, "r1")
	const n = 40
	boom := errors.New("boom")
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			u := Unit{Fingerprint: fmt.Sprintf("fp-%02d", i), Kind: "candidates", StageKey: "cand", RunID: "r1"}
			if i%2 == 0 { // half of them started first, as the runner's claim does
				if _, err := s.ClaimAndStartUnit(ctx, u); err != nil {
					errs[i] = err
					return
				}
			}
			add := func(tx *Tx) error {
				if err := tx.AddCounters("cand", map[string]int64{"units": 1, "zero": 0}); err != nil {
					return err
				}
				return tx.AddLatency("cand", []LatencyBucket{{Role: "speaker", LE: 20 * time.Millisecond, Count: 2}})
			}
			switch i % 4 {
			case 3: // fails after adding counters: rolled back
				errs[i] = s.CommitUnit(ctx, u, func(tx *Tx) error {
					if err := add(tx); err != nil {
						return err
					}
					return boom
				})
			case 1: // recorded as failed, with its counters
				errs[i] = s.FailUnitWith(ctx, u, "no luck", add)
			default:
				errs[i] = s.CommitUnit(ctx, u, func(tx *Tx) error {
					if _, err := tx.InsertCandidates([]Candidate{{ContextID: "c", Persona: "p", Text: "t"}}); err != nil {
						return err
					}
					return add(tx)
				})
			}
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if (i%4 == 3) != errors.Is(err, boom) || (i%4 != 3 && err != nil) {
			t.Fatalf("unit %d: %v", i, err)
		}
	}
	c, err := s.StageCounters(ctx, "r1")
	if err != nil {
		t.Fatal(err)
	}
	if got := c["cand"]["units"]; got != n/2+n/4 {
		t.Fatalf("units counter %d, want %d (done and failed units only)", got, n/2+n/4)
	}
	if _, ok := c["cand"]["zero"]; !ok {
		t.Fatal("a zero counter was not recorded")
	}
	if got := count(t, s, `SELECT SUM(n) FROM llm_latency WHERE run_id = 'r1'`); got != 2*(n/2+n/4) {
		t.Fatalf("latency count %d, want %d", got, 2*(n/2+n/4))
	}
	if got := count(t, s, `SELECT COUNT(*) FROM units WHERE state = 'done'`); got != n/2 {
		t.Fatalf("%d units done, want %d", got, n/2)
	}
	if got := count(t, s, `SELECT COUNT(*) FROM candidates`); got != n/2 {
		t.Fatalf("%d candidates, want %d", got, n/2)
	}
	if got := count(t, s, `SELECT COUNT(*) FROM units WHERE fingerprint = 'fp-00' AND attempts = 1`); got != 1 {
		t.Fatal("a claimed unit's commit counted a second attempt")
	}
}

// A unit whose context ends while its rows are being written still
// commits: its context is checked once, when its turn in the group comes,
// and its statements run without it (a canceled statement would be
// interrupted, and an interrupted statement rolls back the whole group).
func TestGroupedUnitCommitsWhenItsContextEndsMidway(t *testing.T) {
	s := openTemp(t)
	mustRun(t, s, "r1")
	ctx, cancel := context.WithCancel(context.Background())
	u := Unit{Fingerprint: "fp-cancel", Kind: "candidates", StageKey: "cand", RunID: "r1"}
	err := s.CommitUnit(ctx, u, func(tx *Tx) error {
		cancel()
		_, err := tx.InsertCandidates([]Candidate{{ContextID: "c", Persona: "p", Text: "t"}})
		return err
	})
	if err != nil {
		t.Fatalf("unit canceled midway: %v", err)
	}
	if got := count(t, s, `SELECT COUNT(*) FROM candidates WHERE unit_fp = 'fp-cancel'`); got != 1 {
		t.Fatalf("%d candidates committed, want 1", got)
	}
	// A unit whose context ended before its turn is not written.
	err = s.CommitUnit(ctx, Unit{Fingerprint: "fp-late", Kind: "candidates", StageKey: "cand", RunID: "r1"}, nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("unit canceled before its turn: %v, want context.Canceled", err)
	}
}

// The response cache's batches join the unit groups: a batch is written
// whole or not at all, and a bad batch leaves the units of its group
// alone.
func TestCacheBatchesJoinTheGroups(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	mustRun(t, s, "r1")
	c := s.LLMCache()
	var wg sync.WaitGroup
	errs := make([]error, 3)
	wg.Add(3)
	go func() {
		defer wg.Done()
		errs[0] = c.PutMany(ctx, map[string]json.RawMessage{"fp|a": []byte(`{"choices":["a"]}`), "fp|b": []byte(`{"choices":["b"]}`)})
	}()
	go func() {
		defer wg.Done()
		errs[1] = c.PutMany(ctx, map[string]json.RawMessage{"fp|c": []byte(`{"choices":["c"]}`), "fp|d": []byte(`{`)})
	}()
	go func() {
		defer wg.Done()
		errs[2] = s.CommitUnit(ctx, Unit{Fingerprint: "fp-u", Kind: "candidates", StageKey: "cand", RunID: "r1"}, func(tx *Tx) error {
			_, err := tx.InsertCandidates([]Candidate{{ContextID: "c", Persona: "p", Text: "t"}})
			return err
		})
	}()
	wg.Wait()
	if errs[0] != nil || errs[1] == nil || errs[2] != nil {
		t.Fatalf("good batch: %v; bad batch: %v (want an error); unit: %v", errs[0], errs[1], errs[2])
	}
	got, err := c.GetPrefix(ctx, "fp")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || string(got["fp|a"]) != `{"choices":["a"]}` || string(got["fp|b"]) != `{"choices":["b"]}` {
		t.Fatalf("cached %v, want fp|a and fp|b only", got)
	}
	if n := count(t, s, `SELECT COUNT(*) FROM candidates WHERE unit_fp = 'fp-u'`); n != 1 {
		t.Fatalf("%d candidates of the unit, want 1", n)
	}
}

// The writer keeps SQLite's temporary files (the statement journal of the
// group commit's savepoints) in memory: spilled to disk they made two
// thirds of its write calls.
func TestWriterKeepsTemporaryFilesInMemory(t *testing.T) {
	s := openTemp(t)
	var mode int
	if err := s.w.QueryRow(`PRAGMA temp_store`).Scan(&mode); err != nil {
		t.Fatal(err)
	}
	if mode != 2 { // MEMORY
		t.Fatalf("writer temp_store = %d, want 2 (MEMORY)", mode)
	}
}
