package results

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Removal is what removing runs deletes: the runs (a sweep parent brings
// its children), the units no other run links (with their rows), and the
// files only they hold.
type Removal struct {
	Runs  []string         `json:"runs"`
	Units int              `json:"units"`
	Rows  map[string]int64 `json:"rows"` // table -> rows deleted
	// Kept are the units of the removed runs that other runs link, whose
	// rows and files stay.
	Kept int `json:"kept_units"`
	// Files are the run directories and artifact paths removed (after the
	// rows), except what a kept artifact lives in.
	Files []string `json:"files"`
}

// rowTables are the tables whose rows belong to a unit (unit_fp), in an
// order that deletes rows before the rows they reference.
var rowTables = []string{"pairs", "judgments", "metrics", "comparisons", "training_steps", "artifacts", "llm_calls",
	"episodes", "candidates", "candidate_prompts"}

// RemoveRuns removes runs ids (and the children of any sweep parent among
// them) in one transaction: their rows, the units only they link and
// those units' rows, except a unit whose rows a kept unit's rows
// reference (a judgment of an episode, a pair of candidates). With dryRun
// it only says what it would remove. Files (Removal.Files) are deleted
// after the commit, by RemoveFiles.
func (s *Store) RemoveRuns(ctx context.Context, ids []string, dryRun bool) (*Removal, error) {
	rm := &Removal{Rows: map[string]int64{}}
	err := s.writeTx(ctx, func(tx *sql.Tx) error {
		if err := collectRuns(ctx, tx, ids, rm); err != nil {
			return err
		}
		if err := collectUnits(ctx, tx, rm); err != nil {
			return err
		}
		if err := collectFiles(ctx, tx, rm); err != nil {
			return err
		}
		if err := deleteRows(ctx, tx, rm, dryRun); err != nil {
			return err
		}
		if dryRun {
			return errDryRun
		}
		return nil
	})
	if err == errDryRun {
		err = nil
	}
	if err != nil {
		return nil, fmt.Errorf("removing runs: %w", err)
	}
	return rm, nil
}

var errDryRun = fmt.Errorf("dry run")

// collectRuns fills the temporary table rm_runs with ids and their
// descendants.
func collectRuns(ctx context.Context, tx *sql.Tx, ids []string, rm *Removal) error {
	for _, q := range []string{`DROP TABLE IF EXISTS temp.rm_runs`, `DROP TABLE IF EXISTS temp.rm_units`,
		`CREATE TEMP TABLE rm_runs (id TEXT PRIMARY KEY) WITHOUT ROWID`,
		`CREATE TEMP TABLE rm_units (fp TEXT PRIMARY KEY) WITHOUT ROWID`} {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return err
		}
	}
	for _, id := range ids {
		if _, err := tx.ExecContext(ctx, `INSERT INTO rm_runs SELECT id FROM runs WHERE id = ? ON CONFLICT DO NOTHING`, id); err != nil {
			return err
		}
	}
	for {
		res, err := tx.ExecContext(ctx, `INSERT INTO rm_runs SELECT id FROM runs WHERE parent_id IN (SELECT id FROM rm_runs)
			AND id NOT IN (SELECT id FROM rm_runs)`)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			break
		}
	}
	return queryStrings(ctx, tx, `SELECT id FROM rm_runs ORDER BY id`, &rm.Runs)
}

// collectUnits fills rm_units with the units only removed runs link or
// produced, less those a kept unit's rows need, to a fixpoint.
func collectUnits(ctx context.Context, tx *sql.Tx, rm *Removal) error {
	const kept = `SELECT fingerprint FROM run_units WHERE run_id NOT IN (SELECT id FROM rm_runs)`
	if _, err := tx.ExecContext(ctx, `INSERT INTO rm_units
		SELECT fingerprint FROM run_units WHERE run_id IN (SELECT id FROM rm_runs) AND fingerprint NOT IN (`+kept+`)
		UNION SELECT fingerprint FROM units WHERE run_id IN (SELECT id FROM rm_runs) AND fingerprint NOT IN (`+kept+`)`); err != nil {
		return err
	}
	// A kept unit's row referencing a removable unit's row keeps that unit.
	needed := []string{
		`SELECT c.unit_fp FROM judgments j JOIN candidates c ON c.id = j.candidate_id WHERE j.unit_fp NOT IN (SELECT fp FROM rm_units)`,
		`SELECT e.unit_fp FROM judgments j JOIN turns t ON t.id = j.turn_id JOIN episodes e ON e.id = t.episode_id WHERE j.unit_fp NOT IN (SELECT fp FROM rm_units)`,
		`SELECT e.unit_fp FROM judgments j JOIN episodes e ON e.id = j.episode_id WHERE j.unit_fp NOT IN (SELECT fp FROM rm_units)`,
		`SELECT c.unit_fp FROM pairs p JOIN candidates c ON c.id IN (p.chosen_id, p.rejected_id) WHERE p.unit_fp NOT IN (SELECT fp FROM rm_units)`,
		`SELECT e.unit_fp FROM metrics m JOIN episodes e ON e.id = m.episode_id WHERE m.unit_fp NOT IN (SELECT fp FROM rm_units)`,
	}
	for {
		var changed int64
		for _, q := range needed {
			res, err := tx.ExecContext(ctx, `DELETE FROM rm_units WHERE fp IN (`+q+`)`)
			if err != nil {
				return err
			}
			n, _ := res.RowsAffected()
			changed += n
		}
		if changed == 0 {
			break
		}
	}
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM rm_units`).Scan(&rm.Units); err != nil {
		return err
	}
	return tx.QueryRowContext(ctx, `SELECT COUNT(DISTINCT fingerprint) FROM run_units WHERE run_id IN (SELECT id FROM rm_runs)
		AND fingerprint NOT IN (SELECT fp FROM rm_units)`).Scan(&rm.Kept)
}

// collectFiles lists the removed runs' directories and their removable
// units' artifact paths; a path holding (or inside) a kept artifact is
// left out, and so is anything inside a listed directory.
func collectFiles(ctx context.Context, tx *sql.Tx, rm *Removal) error {
	var summaries, arts, keep []string
	if err := queryStrings(ctx, tx, `SELECT summary_json FROM runs WHERE id IN (SELECT id FROM rm_runs)`, &summaries); err != nil {
		return err
	}
	if err := queryStrings(ctx, tx, `SELECT path FROM artifacts WHERE unit_fp IN (SELECT fp FROM rm_units)`, &arts); err != nil {
		return err
	}
	if err := queryStrings(ctx, tx, `SELECT path FROM artifacts WHERE unit_fp NOT IN (SELECT fp FROM rm_units)`, &keep); err != nil {
		return err
	}
	var cand []string
	for _, sj := range summaries {
		var sum struct {
			RunDir string `json:"run_dir"`
		}
		if json.Unmarshal([]byte(sj), &sum) == nil && sum.RunDir != "" {
			cand = append(cand, sum.RunDir)
		}
	}
	cand = append(cand, arts...)
	inside := func(p, dir string) bool {
		rel, err := filepath.Rel(dir, p)
		return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
	}
	for _, c := range cand {
		c = filepath.Clean(c)
		holdsKept := false
		for _, k := range keep {
			holdsKept = holdsKept || inside(filepath.Clean(k), c)
		}
		if !holdsKept {
			rm.Files = append(rm.Files, c)
		}
	}
	sort.Strings(rm.Files)
	var out []string
	for _, f := range rm.Files {
		if len(out) > 0 && (f == out[len(out)-1] || inside(f, out[len(out)-1])) {
			continue
		}
		out = append(out, f)
	}
	rm.Files = out
	return nil
}

// deleteRows counts (and, unless dryRun, deletes) the rows of the
// removable units, then the runs and the units.
func deleteRows(ctx context.Context, tx *sql.Tx, rm *Removal, dryRun bool) error {
	// A unit's shared prompts are found through its candidates (no index
	// on candidate_prompts.unit_fp, migration 0018), so they are listed
	// before the candidates go.
	if err := listPrompts(ctx, tx); err != nil {
		return err
	}
	for _, t := range rowTables {
		where := ` WHERE unit_fp IN (SELECT fp FROM rm_units)`
		switch t {
		case "candidate_prompts":
			where = ` WHERE id IN (SELECT id FROM rm_prompts) AND unit_fp IN (SELECT fp FROM rm_units)`
		case "candidates": // by unit number (migration 0019): no index holds their unit_fp
			where = removedCandidates
		}
		var n int64
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM `+t+where).Scan(&n); err != nil {
			return err
		}
		if t == "episodes" {
			var turns int64
			if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM turns WHERE episode_id IN (SELECT id FROM episodes`+where+`)`).Scan(&turns); err != nil {
				return err
			}
			rm.Rows["turns"] = turns
		}
		rm.Rows[t] = n
		if !dryRun {
			if _, err := tx.ExecContext(ctx, `DELETE FROM `+t+where); err != nil {
				return fmt.Errorf("deleting %s: %w", t, err)
			}
		}
	}
	rm.Rows["runs"] = int64(len(rm.Runs))
	if dryRun {
		return nil
	}
	for _, q := range []string{
		`DELETE FROM unit_scores WHERE unit_fp IN (SELECT fp FROM rm_units)`,
		`DELETE FROM unit_claims WHERE fingerprint IN (SELECT fp FROM rm_units) OR run_id IN (SELECT id FROM rm_runs)`,
		`DELETE FROM run_scored_units WHERE run_id IN (SELECT id FROM rm_runs)`,
		`DELETE FROM run_units WHERE run_id IN (SELECT id FROM rm_runs)`,
		`DELETE FROM runs WHERE id IN (SELECT id FROM rm_runs)`,
		`DELETE FROM units WHERE fingerprint IN (SELECT fp FROM rm_units)`,
	} {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("deleting runs: %w", err)
		}
	}
	return nil
}

// RemoveFiles deletes the files of a removal; a path already gone is not
// an error.
func RemoveFiles(rm *Removal) error {
	for _, f := range rm.Files {
		if err := os.RemoveAll(f); err != nil {
			return fmt.Errorf("removing %s: %w", f, err)
		}
	}
	return nil
}

func queryStrings(ctx context.Context, tx *sql.Tx, q string, out *[]string) error {
	rows, err := tx.QueryContext(ctx, q)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return err
		}
		*out = append(*out, s)
	}
	return rows.Err()
}

// removedCandidates selects the candidates of the removable units.
var removedCandidates = ` WHERE unit_no IN ` + unitNosOf(`SELECT fp FROM rm_units`)

// listPrompts fills the temporary table rm_prompts with the ids of the
// shared prompts of the removable units' candidates.
func listPrompts(ctx context.Context, tx *sql.Tx) error {
	for _, q := range []string{`DROP TABLE IF EXISTS temp.rm_prompts`,
		`CREATE TEMP TABLE rm_prompts (id INTEGER PRIMARY KEY)`,
		`INSERT OR IGNORE INTO rm_prompts (id) SELECT prompt_id FROM candidates` + removedCandidates + ` AND prompt_id IS NOT NULL`} {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("listing the prompts of removed candidates: %w", err)
		}
	}
	return nil
}
