package results

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"
)

// openAtVersion creates a database at path migrated up to version v only,
// through the store's writer settings (foreign keys on).
func openAtVersion(t *testing.T, path string, v int) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite3", dsn(path, false))
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	ms, err := loadMigrations()
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range ms[:v] {
		if err := applyMigration(context.Background(), db, m); err != nil {
			t.Fatal(err)
		}
	}
	return db
}

// execAll runs statements, failing the test at the first error.
func execAll(t *testing.T, db *sql.DB, qs ...string) {
	t.Helper()
	for _, q := range qs {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// oldCandidates writes, as a writer of schema 18 did, two candidates units
// of two candidates each (sharing a prompt), a judgment of each candidate
// and a pair.
var oldCandidates = []string{
	`INSERT INTO runs (id, started_at) VALUES ('r', 0)`,
	`INSERT INTO units (fingerprint, state, created_at, updated_at) VALUES ('other', 'done', 0, 0)`,
	`INSERT INTO units (fingerprint, state, created_at, updated_at) VALUES ('ua', 'done', 0, 0)`,
	`INSERT INTO units (fingerprint, state, created_at, updated_at) VALUES ('ub', 'done', 0, 0)`,
	`INSERT INTO units (fingerprint, state, created_at, updated_at) VALUES ('uj', 'done', 0, 0)`,
	`INSERT INTO candidate_prompts (id, unit_fp, prompt) VALUES (7, 'ub', 'shared prompt')`,
	`INSERT INTO candidates (id, unit_fp, run_id, context_id, sample_idx, prompt, text, created_at)
		VALUES (11, 'ua', 'r', 'c1', 0, 'own prompt', 'a0', 0), (12, 'ua', 'r', 'c1', 1, 'own prompt', 'a1', 0)`,
	`INSERT INTO candidates (id, unit_fp, run_id, context_id, sample_idx, prompt_id, text, created_at)
		VALUES (20, 'ub', 'r', 'c2', 0, 7, 'b0', 0), (21, 'ub', 'r', 'c2', 1, 7, 'b1', 0)`,
	`INSERT INTO judgments (unit_fp, criterion, score, candidate_id, created_at)
		VALUES ('uj', 'empathy', 4, 11, 0), ('uj', 'empathy', 2, 12, 0), ('uj', 'empathy', 5, 20, 0), ('uj', 'empathy', 1, 21, 0)`,
	`INSERT INTO pairs (unit_fp, chosen_id, rejected_id, created_at) VALUES ('uj', 20, 21, 0)`,
}

// TestCandidatesRebuiltByUnitNumber migrates a database written before
// migration 0019: every candidate keeps its id, prompt and the rows that
// point at it (a drop with foreign keys on would have cascaded to them),
// and gets its unit's number; units written afterwards are numbered on.
func TestCandidatesRebuiltByUnitNumber(t *testing.T) {
	path := filepath.Join(t.TempDir(), "old.db")
	v := migrationNumber(t, "_candidates_by_unit_no")
	db := openAtVersion(t, path, v-1)
	execAll(t, db, oldCandidates...)
	db.Close()

	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for q, want := range map[string]int{
		`SELECT COUNT(*) FROM candidates`: 4,
		`SELECT COUNT(*) FROM judgments`:  4,
		`SELECT COUNT(*) FROM pairs`:      1,
		`SELECT COUNT(*) FROM candidates c JOIN units u ON u.fingerprint = c.unit_fp AND u.no = c.unit_no`: 4,
		`SELECT COUNT(DISTINCT no) FROM units WHERE no IS NOT NULL`:                                        4,
		`PRAGMA foreign_keys`: 1, // back on for the writer
	} {
		if n := count(t, s, q); n != want {
			t.Errorf("%s: %d, want %d", q, n, want)
		}
	}
	got, err := s.CandidateTexts(context.Background(), []string{"ub", "ua"})
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, c := range got {
		texts = append(texts, c.Text)
	}
	if strings.Join(texts, " ") != "a0 a1 b0 b1" {
		t.Errorf("candidates of ua and ub: %v, want a0 a1 b0 b1", texts)
	}
	prompts, err := s.CandidatePrompts(context.Background(), []string{"ua", "ub"})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(prompts, "|") != "own prompt|shared prompt" {
		t.Errorf("prompts: %q", prompts)
	}

	// A unit written now takes the next number, and its candidates go in
	// under it; a second candidate at one sample index is refused.
	u := Unit{Fingerprint: "uc", Kind: "candidates", StageKey: "cand"}
	err = s.CommitUnit(context.Background(), u, func(tx *Tx) error {
		_, err := tx.InsertCandidates([]Candidate{{ContextID: "c3", SampleIdx: 0, Prompt: "p", Text: "c0"},
			{ContextID: "c3", SampleIdx: 1, Prompt: "p", Text: "c1"}})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if n := count(t, s, `SELECT no FROM units WHERE fingerprint = 'uc'`); n != 5 {
		t.Errorf("the new unit's number: %d, want 5", n)
	}
	if n := count(t, s, `SELECT COUNT(*) FROM candidates WHERE unit_no = 5`); n != 2 {
		t.Errorf("%d candidates under the new unit's number, want 2", n)
	}
	err = s.CommitUnit(context.Background(), Unit{Fingerprint: "ud", Kind: "candidates", StageKey: "cand"}, func(tx *Tx) error {
		_, err := tx.InsertCandidates([]Candidate{{UnitFP: "uc", ContextID: "c3", SampleIdx: 1, Text: "again"}})
		return err
	})
	if err == nil || !strings.Contains(err.Error(), "UNIQUE") {
		t.Errorf("a second candidate at uc's sample 1: %v, want a UNIQUE error", err)
	}
}

// TestUnitsNumberedByAnyWriter: a unit inserted without a number (by the
// ledger, by ingest's copy, by hand) gets one past the largest.
func TestUnitsNumberedByAnyWriter(t *testing.T) {
	s := openTemp(t)
	execAll(t, s.w, `INSERT INTO units (fingerprint, state, created_at, updated_at) VALUES ('a', 'done', 0, 0), ('b', 'done', 0, 0)`,
		`INSERT INTO units (fingerprint, state, created_at, updated_at, no) VALUES ('c', 'done', 0, 0, 10)`,
		`INSERT INTO units (fingerprint, state, created_at, updated_at) VALUES ('d', 'done', 0, 0)`)
	for fp, want := range map[string]int{"a": 1, "b": 2, "c": 10, "d": 11} {
		if n := count(t, s, `SELECT no FROM units WHERE fingerprint = '`+fp+`'`); n != want {
			t.Errorf("unit %s: number %d, want %d", fp, n, want)
		}
	}
}

// TestRebuildRefusesDanglingRows: a candidate whose unit or run is not
// there (written with foreign keys off) stops the migration with the row
// named, and leaves the database as it was.
func TestRebuildRefusesDanglingRows(t *testing.T) {
	v := migrationNumber(t, "_candidates_by_unit_no")
	for name, tc := range map[string]struct{ row, want string }{
		"unit": {`INSERT INTO candidates (id, unit_fp, created_at) VALUES (30, 'ghost', 0)`, "row 30 of candidates points at a row of units that does not exist"},
		"run":  {`INSERT INTO candidates (id, unit_fp, run_id, sample_idx, created_at) VALUES (30, 'ua', 'ghost', 5, 0)`, "row 30 of candidates points at a row of runs"},
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "old.db")
			db := openAtVersion(t, path, v-1)
			execAll(t, db, oldCandidates...)
			execAll(t, db, `PRAGMA foreign_keys = OFF`, tc.row, `PRAGMA foreign_keys = ON`)
			db.Close()
			_, err := Open(path)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("opening: %v, want an error naming %q", err, tc.want)
			}
			db = openAtVersion(t, path, 0)
			var version, n int
			if err := db.QueryRow(`PRAGMA user_version`).Scan(&version); err != nil {
				t.Fatal(err)
			}
			if err := db.QueryRow(`SELECT COUNT(*) FROM candidates WHERE id IN (11, 12, 20, 21, 30)`).Scan(&n); err != nil {
				t.Fatal(err)
			}
			if version != v-1 || n != 5 {
				t.Errorf("after the failed migration: version %d, %d candidates; want %d and 5", version, n, v-1)
			}
		})
	}
}

// TestCandidatesFoundByUnitNumber: every read that finds the candidates of
// given units searches the index on (unit_no, sample_idx); none scans the
// table (no index holds unit_fp since migration 0019).
func TestCandidatesFoundByUnitNumber(t *testing.T) {
	s := openTemp(t)
	execAll(t, s.w, `CREATE TEMP TABLE rm_units (fp TEXT PRIMARY KEY)`)
	for name, q := range map[string]string{
		"stage inputs' texts":   candidateTextsSQL,
		"stage inputs' prompts": candidatePromptsSQL,
		"digest":                digestQueries[0].sql,
		"remove":                `DELETE FROM candidates` + removedCandidates,
		"remove's prompts":      `SELECT prompt_id FROM candidates` + removedCandidates,
	} {
		plan := strings.Join(queryPlan(t, s.w, strings.ReplaceAll(strings.ReplaceAll(q, "?1", "?"), "?", `'["a"]'`)), "; ")
		if !strings.Contains(plan, "(unit_no=?)") || strings.Contains(plan, "SCAN candidates") || strings.Contains(plan, "SCAN c ") {
			t.Errorf("%s: plan %q, want a search by unit_no", name, plan)
		}
	}
}
