package results

import (
	"context"
	"testing"
)

// scoreGroupsBoth returns the run's groups (split none, and scoped to the
// first half of the judge units) as the report reads them now.
func scoreGroupsBoth(t *testing.T, s *Store, units []string) (whole, scoped []ScoreGroup) {
	t.Helper()
	ctx := context.Background()
	whole, err := s.ScoreGroups(ctx, "r", "auto")
	if err != nil {
		t.Fatal(err)
	}
	scoped, err = s.ScoreGroupsIn(ctx, "r", "auto", Scope{Units: units})
	if err != nil {
		t.Fatal(err)
	}
	return whole, scoped
}

// TestScoreSumsEqualRawRows reads the fixture's scores through the unit
// score sums, through the raw rows (sums deleted), through a mix of both,
// and after FillUnitScores: all bit for bit equal.
func TestScoreSumsEqualRawRows(t *testing.T) {
	s := openTemp(t)
	judges, _ := scanFixture(t, s, 520)
	// Every unit holding values has its sums; a unit that wrote none (a
	// judge unit that judged nothing) has no row.
	valuedSQL := `EXISTS (SELECT 1 FROM judgments j WHERE j.unit_fp = u.fingerprint AND j.candidate_id IS NULL)
		OR EXISTS (SELECT 1 FROM metrics m WHERE m.unit_fp = u.fingerprint AND m.episode_id IS NOT NULL)`
	valued := `SELECT COUNT(*) FROM units u WHERE ` + valuedSQL
	if n := count(t, s, `SELECT COUNT(*) FROM units u WHERE (`+valuedSQL+`)
		AND NOT EXISTS (SELECT 1 FROM unit_scores us WHERE us.unit_fp = u.fingerprint)`); n != 0 {
		t.Fatalf("%d units hold values without score sums", n)
	}
	if n := count(t, s, `SELECT COUNT(*) FROM units u WHERE u.fingerprint LIKE 'judge-%'
		AND NOT EXISTS (SELECT 1 FROM unit_scores us WHERE us.unit_fp = u.fingerprint)`); n == 0 {
		t.Fatal("every judge unit has score sums, those that judged nothing too")
	}
	if n := count(t, s, `SELECT COUNT(*) FROM unit_scores WHERE packed <> ''`); n == 0 {
		t.Fatal("no unit score sums written")
	}
	half := judges[:len(judges)/2]
	sumWhole, sumScoped := scoreGroupsBoth(t, s, half)

	if _, err := s.w.Exec(`DELETE FROM unit_scores WHERE unit_fp >= 'judge-0300'`); err != nil {
		t.Fatal(err)
	}
	mixWhole, mixScoped := scoreGroupsBoth(t, s, half)
	sameGroups(t, "mixed", mixWhole, sumWhole)
	sameGroups(t, "mixed scoped", mixScoped, sumScoped)

	if _, err := s.w.Exec(`DELETE FROM unit_scores`); err != nil {
		t.Fatal(err)
	}
	rawWhole, rawScoped := scoreGroupsBoth(t, s, half)
	sameGroups(t, "raw", sumWhole, rawWhole)
	sameGroups(t, "raw scoped", sumScoped, rawScoped)

	n, err := s.FillUnitScores(context.Background())
	if err != nil || n != count(t, s, valued) {
		t.Fatalf("filled %d: %v", n, err)
	}
	fillWhole, fillScoped := scoreGroupsBoth(t, s, half)
	sameGroups(t, "filled", fillWhole, rawWhole)
	sameGroups(t, "filled scoped", fillScoped, rawScoped)
}

// TestScoreSumsDroppedOnLaterWrites changes a scored unit's rows after its
// commit: the unit loses its score sums and the report reads the new rows.
func TestScoreSumsDroppedOnLaterWrites(t *testing.T) {
	s := openTemp(t)
	_, eps := scanFixture(t, s, 40)
	ctx := context.Background()
	marked := func(fp string) bool {
		return count(t, s, `SELECT COUNT(*) FROM unit_scores WHERE unit_fp = ?`, fp) == 1
	}
	if !marked("judge-0001") || !marked("judge-0002") {
		t.Fatal("committed judge units are not scored")
	}
	if _, err := s.w.Exec(`INSERT INTO judgments (unit_fp, judge, criterion, score, scale_min, scale_max,
		episode_id, created_at) VALUES ('judge-0001', 'late', 'fidelity', 4, 0, 8, ?, 1)`, eps[1][0]); err != nil {
		t.Fatal(err)
	}
	if _, err := s.w.Exec(`UPDATE metrics SET value = value + 1 WHERE unit_fp = 'judge-0002'`); err != nil {
		t.Fatal(err)
	}
	if marked("judge-0001") || marked("judge-0002") || !marked("judge-0004") {
		t.Fatal("later writes did not drop exactly their units' score sums")
	}
	for _, split := range []string{"auto", "none"} {
		got, err := s.ScoreGroups(ctx, "r", split)
		if err != nil {
			t.Fatal(err)
		}
		want, err := s.refScoreGroups(ctx, "r", split)
		if err != nil {
			t.Fatal(err)
		}
		sameGroups(t, "after later writes, split "+split, got, want)
	}
}
