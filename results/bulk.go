package results

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// Bulk is the insertion of many episodes into one unit's transaction (an
// import: 100,000 episodes of one unit). Two per-row triggers cost more
// there than the same work done once at the end, inside the same
// transaction (a failed unit rolls the triggers' removal back with
// everything else):
//
//   - migration 0007's episodeTallyTrigger counts each inserted episode
//     into run_stage_units: one UPDATE counts them all;
//   - migration 0011's turnIndexTrigger adds each turn to the full-text
//     index: FTS4 flushes its pending terms into a new segment at the end
//     of every statement, so one INSERT … SELECT of the new turns indexes
//     them about five times faster than the per-turn trigger.
//
// Into an empty episodes table (a new database), its indexes are dropped
// too and built again from their stored definitions at the end, by one
// sort each.
const (
	episodeTallyTrigger = "run_stage_units_episode_add"
	turnIndexTrigger    = "turn_text_add"
)

// suspendTrigger drops trigger name for the rest of tx and returns what
// creates it again from its stored definition; ok is false (and nothing
// is dropped) when the database has no such trigger.
func suspendTrigger(ctx context.Context, tx *sql.Tx, name string) (restore func() error, ok bool, err error) {
	var ddl string
	err = tx.QueryRowContext(ctx, `SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = ?`, name).Scan(&ddl)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("reading trigger %s: %w", name, err)
	}
	if _, err := tx.ExecContext(ctx, `DROP TRIGGER `+name); err != nil {
		return nil, false, fmt.Errorf("suspending trigger %s: %w", name, err)
	}
	return func() error {
		if _, err := tx.ExecContext(ctx, ddl); err != nil {
			return fmt.Errorf("restoring trigger %s: %w", name, err)
		}
		return nil
	}, true, nil
}

// suspendEpisodeTally suspends the tally trigger; resume creates it again
// and adds n episodes of unit fp to the tallies, as n firings of the
// trigger would have (run_units does not change in between).
func suspendEpisodeTally(ctx context.Context, tx *sql.Tx) (resume func(fp string, n int) error, err error) {
	restore, ok, err := suspendTrigger(ctx, tx, episodeTallyTrigger)
	if err != nil || !ok {
		return func(string, int) error { return nil }, err
	}
	return func(fp string, n int) error {
		if err := restore(); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `UPDATE run_stage_units SET episodes = episodes + ?
			WHERE (run_id, stage_key) IN (SELECT run_id, stage_key FROM run_units WHERE fingerprint = ?)`, n, fp)
		if err != nil {
			return fmt.Errorf("counting the imported episodes: %w", err)
		}
		return nil
	}, nil
}

// suspendTurnIndex suspends the full-text index's insert trigger; resume
// creates it again and indexes every turn inserted since, in one statement.
func suspendTurnIndex(ctx context.Context, tx *sql.Tx) (resume func() error, err error) {
	var last int64
	if err := tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(id), 0) FROM turns`).Scan(&last); err != nil {
		return nil, fmt.Errorf("reading the last turn id: %w", err)
	}
	restore, ok, err := suspendTrigger(ctx, tx, turnIndexTrigger)
	if err != nil || !ok {
		return func() error { return nil }, err
	}
	return func() error {
		if err := restore(); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO turn_text(docid, response) SELECT id, response FROM turns WHERE id > ?`, last); err != nil {
			return fmt.Errorf("indexing the imported turns: %w", err)
		}
		return nil
	}, nil
}

// suspendIndexes drops table's indexes (those of CREATE INDEX, not of its
// constraints) for the rest of tx and returns what creates them again
// from their stored definitions.
func suspendIndexes(ctx context.Context, tx *sql.Tx, table string) (restore func() error, err error) {
	rows, err := tx.QueryContext(ctx, `SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL ORDER BY rowid`, table)
	if err != nil {
		return nil, fmt.Errorf("reading the indexes of %s: %w", table, err)
	}
	var names, ddls []string
	for rows.Next() {
		var n, d string
		if err := rows.Scan(&n, &d); err != nil {
			rows.Close()
			return nil, fmt.Errorf("reading the indexes of %s: %w", table, err)
		}
		names, ddls = append(names, n), append(ddls, d)
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return nil, fmt.Errorf("reading the indexes of %s: %w", table, err)
	}
	for _, n := range names {
		if _, err := tx.ExecContext(ctx, `DROP INDEX "`+n+`"`); err != nil {
			return nil, fmt.Errorf("suspending index %s: %w", n, err)
		}
	}
	return func() error {
		for i, d := range ddls {
			if _, err := tx.ExecContext(ctx, d); err != nil {
				return fmt.Errorf("building index %s: %w", names[i], err)
			}
		}
		return nil
	}, nil
}
