package results

import (
	"context"
	"slices"
	"strings"
	"testing"
)

// rawScoredUnits lists "run unit" for every unit linked to a run that holds
// a value the report's scan reads: the reference run_scored_units must equal.
func rawScoredUnits(t *testing.T, s *Store) []string {
	t.Helper()
	return pairsOf(t, s, `SELECT ru.run_id || ' ' || ru.fingerprint FROM run_units ru
		WHERE EXISTS (SELECT 1 FROM judgments j WHERE j.unit_fp = ru.fingerprint AND j.candidate_id IS NULL)
		   OR EXISTS (SELECT 1 FROM metrics m WHERE m.unit_fp = ru.fingerprint AND m.episode_id IS NOT NULL)
		ORDER BY 1`)
}

func pairsOf(t *testing.T, s *Store, query string) []string {
	t.Helper()
	rows, err := s.Reader().Query(query)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var p string
		if err := rows.Scan(&p); err != nil {
			t.Fatal(err)
		}
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// checkScoredUnits compares run_scored_units with the raw rows, and the
// run's score groups with the reference scan over all its units.
func checkScoredUnits(t *testing.T, s *Store, step string) {
	t.Helper()
	got := pairsOf(t, s, `SELECT run_id || ' ' || fingerprint FROM run_scored_units ORDER BY 1`)
	if want := rawScoredUnits(t, s); !slices.Equal(got, want) {
		t.Fatalf("%s: run_scored_units\n%v\nwant\n%v", step, got, want)
	}
	for _, split := range []string{"auto", "none"} {
		g, err := s.ScoreGroups(context.Background(), "r", split)
		if err != nil {
			t.Fatal(err)
		}
		want, err := s.refScoreGroups(context.Background(), "r", split)
		if err != nil {
			t.Fatal(err)
		}
		sameGroups(t, step+", split "+split, g, want)
	}
}

// TestRunScoredUnitsEqualRawRows drives units through every kind of write
// that adds or removes a scanned value or a link, checking after each.
func TestRunScoredUnitsEqualRawRows(t *testing.T) {
	s := openTemp(t)
	_, eps := scanFixture(t, s, 30)
	ctx := context.Background()
	if n := count(t, s, `SELECT COUNT(*) FROM run_scored_units`); n == 0 || n == count(t, s, `SELECT COUNT(*) FROM run_units`) {
		t.Fatalf("%d scored units: want some units, not all", n)
	}
	checkScoredUnits(t, s, "commits")
	exec := func(step, q string, args ...any) {
		t.Helper()
		if _, err := s.w.Exec(q, args...); err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		checkScoredUnits(t, s, step)
	}
	// judge-0003 has no values (u%7 == 3); gen units never have any.
	exec("candidate judgment only", `INSERT INTO judgments (unit_fp, judge, criterion, score, scale_min, scale_max,
		candidate_id, created_at) SELECT 'judge-0003', 'j', 'x', 1, 0, 8, id, 1 FROM candidates LIMIT 1`)
	exec("metric without episode", `INSERT INTO metrics (unit_fp, name, value, created_at) VALUES ('judge-0003', 'm', 1, 1)`)
	exec("late judgment", `INSERT INTO judgments (unit_fp, judge, criterion, score, scale_min, scale_max,
		episode_id, created_at) VALUES ('judge-0003', 'late', 'fidelity', 4, 0, 8, ?, 1)`, eps[3][0])
	exec("judgment moved to another unit", `UPDATE judgments SET unit_fp = 'gen-0001' WHERE unit_fp = 'judge-0003'
		AND candidate_id IS NULL`)
	exec("metric given an episode", `UPDATE metrics SET episode_id = ? WHERE unit_fp = 'judge-0003'`, eps[3][1])
	exec("metric taken off its episode", `UPDATE metrics SET episode_id = NULL WHERE unit_fp = 'judge-0003'`)
	exec("judgments dropped, metrics kept", `DELETE FROM judgments WHERE unit_fp = 'judge-0004' AND candidate_id IS NULL`)
	exec("metrics dropped", `DELETE FROM metrics WHERE unit_fp = 'judge-0004'`)
	if n, err := s.LinkUnits(ctx, "other", "judge", []string{"judge-0001", "judge-0003", "judge-0005"}); err != nil || n != 3 {
		t.Fatalf("linked %d: %v", n, err)
	}
	checkScoredUnits(t, s, "cached links")
	exec("unlinked", `DELETE FROM run_units WHERE run_id = 'r' AND fingerprint = 'judge-0005'`)
	exec("episode deleted", `DELETE FROM episodes WHERE id = ?`, eps[6][0])
	exec("run deleted", `DELETE FROM runs WHERE id = 'other'`)
	if !strings.Contains(strings.Join(rawScoredUnits(t, s), ","), "r judge-0001") {
		t.Fatal("fixture lost its scored units")
	}
}

// TestRunScoredUnitsBackfill reapplies migration 0009 to a database written
// without it: the backfill must give the raw list.
func TestRunScoredUnitsBackfill(t *testing.T) {
	s := openTemp(t)
	scanFixture(t, s, 30)
	undoMigrations(t, s.w, migrationNumber(t, "_run_scored_units"))
	// A write the missing triggers do not see.
	if _, err := s.w.Exec(`DELETE FROM judgments WHERE unit_fp = 'judge-0002'`); err != nil {
		t.Fatal(err)
	}
	if err := migrate(context.Background(), s.w); err != nil {
		t.Fatal(err)
	}
	checkScoredUnits(t, s, "backfill")
}
