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

// Bulk inserts the episodes of one large unit (Tx.BulkEpisodes).
type Bulk struct {
	tx     *Tx
	n      int
	resume func(fp string, n int) error
	index  func() error
}

// BulkEpisodes starts a bulk insertion of episodes into the unit's
// transaction: the per-row tally and full-text triggers are suspended
// until Close, which does their work once. Insert episodes with
// Bulk.Insert, then call Close before the callback returns; a unit whose
// callback fails rolls everything back, the triggers included.
func (t *Tx) BulkEpisodes() (*Bulk, error) {
	resume, err := suspendEpisodeTally(t.ctx, t.tx)
	if err != nil {
		return nil, err
	}
	index, err := suspendTurnIndex(t.ctx, t.tx)
	if err != nil {
		return nil, err
	}
	return &Bulk{tx: t, resume: resume, index: index}, nil
}

// Insert inserts one episode with its turns (as Tx.InsertEpisode).
func (b *Bulk) Insert(e Episode) (int64, error) {
	id, err := b.tx.InsertEpisode(e)
	if err == nil {
		b.n++
	}
	return id, err
}

// Close indexes the inserted turns and counts the episodes in the tallies,
// restoring the triggers.
func (b *Bulk) Close() error {
	if err := b.index(); err != nil {
		return err
	}
	return b.resume(b.tx.unit.Fingerprint, b.n)
}
