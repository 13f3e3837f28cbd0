package results

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"os"
	"strings"
)

// IngestStats says what one Ingest call copied.
type IngestStats struct {
	// Units are the fingerprints of the units copied (done in the shard,
	// not done in the store before).
	Units []string
	// Rows counts the rows copied per table.
	Rows map[string]int64
}

// ingestTable describes how one result table is copied: which column
// selects its rows (unit_fp, or a parent id for turns) and which integer
// columns point at rows of other tables and must be remapped.
type ingestTable struct {
	name   string
	parent string            // "" = rows selected by unit_fp; else the id column whose parent is copied
	refs   map[string]string // column -> referenced table
	upsert string            // conflict target whose duplicates are skipped
	// where, if set, selects the shard's rows instead of their unit_fp
	// (an index-backed condition where no index holds unit_fp).
	where string
	// derived columns are computed in the main database from the shard's
	// row s, not copied (a number the main database gave).
	derived map[string]string
}

// ingestOrder lists the result tables, parents before children.
var ingestOrder = []ingestTable{
	{name: "llm_calls", upsert: "key"},
	{name: "episodes"},
	{name: "turns", parent: "episode_id", refs: map[string]string{"episode_id": "episodes"}},
	{name: "candidate_prompts"},
	// A candidate's unit_no is its unit's number (migration 0019), which
	// the unit got anew in the main database.
	{name: "candidates", refs: map[string]string{"prompt_id": "candidate_prompts"},
		where:   `s.unit_no IN (SELECT no FROM shard.units WHERE fingerprint IN (SELECT fp FROM temp.ing_units))`,
		derived: map[string]string{"unit_no": `(SELECT no FROM main.units WHERE fingerprint = s.unit_fp)`}},
	{name: "judgments", refs: map[string]string{"candidate_id": "candidates", "turn_id": "turns", "episode_id": "episodes"}},
	{name: "comparisons"},
	{name: "metrics", refs: map[string]string{"episode_id": "episodes"}},
	{name: "pairs", refs: map[string]string{"chosen_id": "candidates", "rejected_id": "candidates"}},
	{name: "training_steps"},
	{name: "artifacts"},
}

// Ingest copies into s the units that are done in the shard database at
// shardPath (written by a `mascot stage-exec` job) and not yet done in s,
// together with all their result rows, and links them to runID. Integer
// ids are reassigned in s; references between copied rows follow them,
// and references to rows the copied units did not produce (upstream rows
// the shard had from its snapshot of s) are kept as they are. Everything
// happens in one transaction, so ingesting the same shard again adds
// nothing.
func Ingest(ctx context.Context, s *Store, shardPath, runID string) (IngestStats, error) {
	st := IngestStats{Rows: map[string]int64{}}
	conn, err := s.w.Conn(ctx)
	if err != nil {
		return st, fmt.Errorf("ingesting %s: %w", shardPath, err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `ATTACH DATABASE ? AS shard`, "file:"+shardPath+"?mode=ro"); err != nil {
		return st, fmt.Errorf("attaching shard %s: %w", shardPath, err)
	}
	defer func() {
		// The connection is closed right after; a failed DETACH leaves nothing behind.
		_, _ = conn.ExecContext(context.WithoutCancel(ctx), `DETACH DATABASE shard`)
	}()
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return st, fmt.Errorf("ingesting %s: beginning: %w", shardPath, err)
	}
	defer func() { _ = tx.Rollback() }() // sql.ErrTxDone after Commit
	if err := ingestTx(ctx, tx, runID, &st); err != nil {
		return IngestStats{Rows: map[string]int64{}}, fmt.Errorf("ingesting %s: %w", shardPath, err)
	}
	if _, err := tx.ExecContext(ctx, `DROP TABLE temp.ing_units`); err != nil {
		return st, fmt.Errorf("ingesting %s: %w", shardPath, err)
	}
	for _, t := range ingestOrder {
		if _, err := tx.ExecContext(ctx, `DROP TABLE IF EXISTS temp.map_`+t.name); err != nil {
			return st, fmt.Errorf("ingesting %s: %w", shardPath, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return IngestStats{Rows: map[string]int64{}}, fmt.Errorf("ingesting %s: committing: %w", shardPath, err)
	}
	return st, nil
}

func ingestTx(ctx context.Context, tx *sql.Tx, runID string, st *IngestStats) error {
	stmts := []string{
		`CREATE TEMP TABLE ing_units (fp TEXT PRIMARY KEY)`,
		`INSERT INTO temp.ing_units SELECT u.fingerprint FROM shard.units u WHERE u.state = 'done'
			AND NOT EXISTS (SELECT 1 FROM main.units m WHERE m.fingerprint = u.fingerprint AND m.state = 'done')`,
	}
	for _, q := range stmts {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("selecting units: %w", err)
		}
	}
	rows, err := tx.QueryContext(ctx, `SELECT fp FROM temp.ing_units ORDER BY fp`)
	if err != nil {
		return fmt.Errorf("listing units: %w", err)
	}
	for rows.Next() {
		var fp string
		if err := rows.Scan(&fp); err != nil {
			rows.Close()
			return err
		}
		st.Units = append(st.Units, fp)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	if len(st.Units) == 0 {
		return nil
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO main.units (fingerprint, kind, stage_key, run_id, state, attempts, error,
			created_at, updated_at, done_at)
		SELECT u.fingerprint, u.kind, u.stage_key, ?, 'done', u.attempts, '', u.created_at, u.updated_at, u.done_at
		FROM shard.units u JOIN temp.ing_units i ON i.fp = u.fingerprint WHERE true
		ON CONFLICT (fingerprint) DO UPDATE SET kind = excluded.kind, stage_key = excluded.stage_key,
			run_id = excluded.run_id, state = 'done', attempts = units.attempts + excluded.attempts, error = '',
			updated_at = excluded.updated_at, done_at = excluded.done_at`, runID)
	if err != nil {
		return fmt.Errorf("copying units: %w", err)
	}
	for _, t := range ingestOrder {
		n, err := ingestRows(ctx, tx, t, runID)
		if err != nil {
			return fmt.Errorf("copying %s: %w", t.name, err)
		}
		if n > 0 {
			st.Rows[t.name] = n
		}
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO main.run_units (run_id, fingerprint, stage_key, cached)
		SELECT ?, u.fingerprint, u.stage_key, 0 FROM shard.units u JOIN temp.ing_units i ON i.fp = u.fingerprint WHERE true
		ON CONFLICT (run_id, fingerprint) DO NOTHING`, runID)
	if err != nil {
		return fmt.Errorf("linking units to run %s: %w", runID, err)
	}
	return nil
}

// ingestRows builds the id map of one table and copies its rows.
func ingestRows(ctx context.Context, tx *sql.Tx, t ingestTable, runID string) (int64, error) {
	cols, err := tableColumns(ctx, tx, t.name)
	if err != nil {
		return 0, err
	}
	where := cmp.Or(t.where, `s.unit_fp IN (SELECT fp FROM temp.ing_units)`)
	if t.parent != "" {
		where = fmt.Sprintf(`s.%s IN (SELECT old FROM temp.map_%s)`, t.parent, t.refs[t.parent])
	}
	mk := fmt.Sprintf(`CREATE TEMP TABLE map_%[1]s (old INTEGER PRIMARY KEY, new INTEGER NOT NULL);
		INSERT INTO temp.map_%[1]s SELECT s.id, (SELECT COALESCE(MAX(id), 0) FROM main.%[1]s) + ROW_NUMBER() OVER (ORDER BY s.id)
		FROM shard.%[1]s s WHERE %[2]s`, t.name, where)
	if _, err := tx.ExecContext(ctx, mk); err != nil {
		return 0, fmt.Errorf("mapping ids: %w", err)
	}
	sel := make([]string, len(cols))
	var args []any
	for i, c := range cols {
		switch {
		case c == "id":
			sel[i] = "m.new"
		case c == "run_id":
			sel[i] = "?"
			args = append(args, runID)
		case t.derived[c] != "":
			sel[i] = t.derived[c]
		case t.refs[c] != "":
			sel[i] = fmt.Sprintf(`COALESCE((SELECT new FROM temp.map_%s WHERE old = s.%s), s.%s)`, t.refs[c], c, c)
		default:
			sel[i] = "s." + c
		}
	}
	q := fmt.Sprintf(`INSERT INTO main.%s (%s) SELECT %s FROM shard.%s s JOIN temp.map_%s m ON m.old = s.id WHERE true`,
		t.name, strings.Join(cols, ", "), strings.Join(sel, ", "), t.name, t.name)
	if t.upsert != "" {
		q += ` ON CONFLICT (` + t.upsert + `) DO NOTHING`
	}
	res, err := tx.ExecContext(ctx, q, args...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// tableColumns lists a main-schema table's columns in order.
func tableColumns(ctx context.Context, tx *sql.Tx, table string) ([]string, error) {
	rows, err := tx.QueryContext(ctx, `SELECT name FROM pragma_table_info(?, 'main')`, table)
	if err != nil {
		return nil, fmt.Errorf("reading columns: %w", err)
	}
	defer rows.Close()
	var cols []string
	for rows.Next() {
		var c string
		if err := rows.Scan(&c); err != nil {
			return nil, err
		}
		cols = append(cols, c)
	}
	if len(cols) == 0 {
		return nil, fmt.Errorf("table %s has no columns", table)
	}
	return cols, rows.Err()
}

// Snapshot writes a consistent copy of the store to path (VACUUM INTO),
// replacing any file there. Slurm jobs start from such a copy, so they read
// upstream rows without sharing the live database file.
func Snapshot(ctx context.Context, s *Store, path string) error {
	if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
		return fmt.Errorf("replacing snapshot %s: %w", path, err)
	}
	if _, err := s.w.ExecContext(ctx, `VACUUM INTO ?`, path); err != nil {
		return fmt.Errorf("writing snapshot %s: %w", path, err)
	}
	return nil
}
