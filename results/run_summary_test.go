package results

import (
	"context"
	"maps"
	"path/filepath"
	"testing"
)

// rawRunTallies counts a run's units and episodes from the ledger rows,
// the way the runs pages did before run_stage_units: the reference the
// kept tallies must equal.
func rawRunTallies(t *testing.T, s *Store, runID string) (map[string]UnitCounts, int) {
	t.Helper()
	rows, err := s.Reader().Query(`SELECT ru.stage_key,
		SUM(u.state = 'done' AND ru.cached = 0), SUM(u.state = 'done' AND ru.cached = 1), SUM(u.state = 'failed')
		FROM run_units ru JOIN units u ON u.fingerprint = ru.fingerprint
		WHERE ru.run_id = ? GROUP BY ru.stage_key`, runID)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]UnitCounts{}
	for rows.Next() {
		var k string
		var c UnitCounts
		if err := rows.Scan(&k, &c.Done, &c.Cached, &c.Failed); err != nil {
			t.Fatal(err)
		}
		out[k] = c
	}
	eps := count(t, s, `SELECT COUNT(*) FROM run_units ru JOIN episodes e ON e.unit_fp = ru.fingerprint
		WHERE ru.run_id = ?`, runID)
	return out, eps
}

// checkTallies compares the kept tallies of every run with the raw counts.
func checkTallies(t *testing.T, s *Store, step string, runs ...string) {
	t.Helper()
	ctx := context.Background()
	for _, id := range runs {
		want, wantEps := rawRunTallies(t, s, id)
		got, err := s.RunUnitCounts(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		for k, c := range got { // a stage whose units all moved away reads 0 0 0
			if c == (UnitCounts{}) {
				if _, ok := want[k]; !ok {
					delete(got, k)
				}
			}
		}
		d, err := s.GetRunDetail(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if !maps.Equal(got, want) || d.Episodes != wantEps {
			t.Fatalf("%s: run %s tallies %+v episodes %d, want %+v episodes %d", step, id, got, d.Episodes, want, wantEps)
		}
	}
}

// writeLedgerHistory runs units through every ledger transition: commits
// with episodes, a failure retried and committed by another run, cached
// links, episodes added to a linked unit and a deleted episode.
func writeLedgerHistory(t *testing.T, s *Store, check func(step string)) {
	t.Helper()
	ctx := context.Background()
	mustRun(t, s, "r1")
	mustRun(t, s, "r2")
	gen := func(fp, run string) Unit { return Unit{Fingerprint: fp, Kind: "generate", StageKey: "gen", RunID: run} }
	for _, fp := range []string{"g1", "g2"} {
		err := s.CommitUnit(ctx, gen(fp, "r1"), func(tx *Tx) error {
			for i, c := range []string{fp + "-a", fp + "-b"} {
				e := sampleEpisode(c)
				e.Idx = i
				if _, err := tx.InsertEpisode(e); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	check("commits")
	judge := Unit{Fingerprint: "j1", Kind: "judge", StageKey: "judge", RunID: "r1"}
	if err := s.FailUnit(ctx, judge, "timeout"); err != nil {
		t.Fatal(err)
	}
	check("failure")
	if err := s.StartUnit(ctx, Unit{Fingerprint: "j1", Kind: "judge", StageKey: "judge", RunID: "r2"}); err != nil {
		t.Fatal(err)
	}
	check("retry started")
	if err := s.CommitUnit(ctx, Unit{Fingerprint: "j1", Kind: "judge", StageKey: "judge", RunID: "r2"}, nil); err != nil {
		t.Fatal(err)
	}
	check("retry committed by another run")
	if n, err := s.LinkUnits(ctx, "r2", "gen", []string{"g1", "g2", "missing"}); err != nil || n != 2 {
		t.Fatalf("linked %d: %v", n, err)
	}
	if err := s.CommitUnit(ctx, gen("g1", "r2"), nil); err != nil { // already linked: nothing changes
		t.Fatal(err)
	}
	check("cached links")
	var late int64
	err := s.CommitUnit(ctx, gen("g3", "r1"), func(tx *Tx) error {
		_, err := tx.InsertEpisode(sampleEpisode("g3-a"))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.w.QueryRow(`SELECT id FROM episodes WHERE conv_id = 'g3-a'`).Scan(&late); err != nil {
		t.Fatal(err)
	}
	if _, err := s.w.Exec(`INSERT INTO episodes (unit_fp, idx, conv_id, created_at) VALUES ('g1', 9, 'late', 1)`); err != nil {
		t.Fatal(err)
	}
	if _, err := s.w.Exec(`DELETE FROM episodes WHERE id = ?`, late); err != nil {
		t.Fatal(err)
	}
	check("episodes added and deleted")
}

// TestRunStageUnitsAreFactsOfEachRun follows the ledger history step by
// step: each run's tallies say what that run did (produced, reused,
// failed), and a unit another run later retries and commits leaves the
// earlier run's failure in place (results ls once turned a failed run's
// "110 done, 120 failed" into "230 done, 0 failed" after a rerun).
func TestRunStageUnitsAreFactsOfEachRun(t *testing.T) {
	s := openTemp(t)
	type tallies = map[string]map[string]UnitCounts
	want := map[string]tallies{
		"commits":       {"r1": {"gen": {Done: 2}}},
		"failure":       {"r1": {"gen": {Done: 2}, "judge": {Failed: 1}}},
		"retry started": {"r1": {"gen": {Done: 2}, "judge": {Failed: 1}}},
		"retry committed by another run": {"r1": {"gen": {Done: 2}, "judge": {Failed: 1}},
			"r2": {"judge": {Done: 1}}},
		"cached links": {"r1": {"gen": {Done: 2}, "judge": {Failed: 1}},
			"r2": {"gen": {Cached: 2}, "judge": {Done: 1}}},
		"episodes added and deleted": {"r1": {"gen": {Done: 3}, "judge": {Failed: 1}},
			"r2": {"gen": {Cached: 2}, "judge": {Done: 1}}},
	}
	ctx := context.Background()
	writeLedgerHistory(t, s, func(step string) {
		for _, id := range []string{"r1", "r2"} {
			got, err := s.RunUnitCounts(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			exp := want[step][id]
			if exp == nil {
				exp = map[string]UnitCounts{}
			}
			if !maps.Equal(got, exp) {
				t.Fatalf("%s: run %s tallies %+v, want %+v", step, id, got, exp)
			}
			_, wantEps := rawRunTallies(t, s, id)
			d, err := s.GetRunDetail(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			if d.Episodes != wantEps {
				t.Fatalf("%s: run %s has %d episodes, want %d", step, id, d.Episodes, wantEps)
			}
		}
	})
	list, err := s.ListRuns(ctx, RunFilter{Asc: true})
	if err != nil {
		t.Fatal(err)
	}
	final := want["episodes added and deleted"]
	for _, e := range list {
		var sum UnitCounts
		for _, c := range final[e.ID] {
			sum.Done, sum.Cached, sum.Failed = sum.Done+c.Done, sum.Cached+c.Cached, sum.Failed+c.Failed
		}
		if e.UnitsDone != sum.Done || e.UnitsCached != sum.Cached || e.UnitsFailed != sum.Failed {
			t.Fatalf("list entry %s: %d/%d/%d, want %+v", e.ID, e.UnitsDone, e.UnitsCached, e.UnitsFailed, sum)
		}
	}
}

// TestRunStageUnitsBackfill reopens a database from before migration 0007:
// the migration's backfill must give the raw counts (of the units' state
// then: the backfill cannot know which run failed a unit another run
// committed later, so it counts the unit as done).
func TestRunStageUnitsBackfill(t *testing.T) {
	path := filepath.Join(t.TempDir(), "old.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	writeLedgerHistory(t, s, func(string) {})
	// Back to the version before run_stage_units: every migration from it
	// on is reapplied when the store opens again.
	undoMigrations(t, s.w, migrationNumber(t, "_run_stage_units"))
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if s, err = Open(path); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	checkTallies(t, s, "backfill", "r1", "r2")
}
