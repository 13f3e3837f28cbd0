package results

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
)

// UnitDone reports whether the unit with this fingerprint is done.
func (s *Store) UnitDone(ctx context.Context, fingerprint string) (bool, error) {
	var state string
	err := s.r.QueryRowContext(ctx, `SELECT state FROM units WHERE fingerprint = ?`, fingerprint).Scan(&state)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("looking up unit %s: %w", fingerprint, err)
	}
	return state == UnitDone, nil
}

// DoneUnits returns the subset of fingerprints that are done (as a set),
// in one query whatever the number of fingerprints.
func (s *Store) DoneUnits(ctx context.Context, fingerprints []string) (map[string]bool, error) {
	out := make(map[string]bool)
	if len(fingerprints) == 0 {
		return out, nil
	}
	arg, err := json.Marshal(fingerprints)
	if err != nil {
		return nil, fmt.Errorf("encoding fingerprints: %w", err)
	}
	rows, err := s.r.QueryContext(ctx, `SELECT fingerprint FROM units
		WHERE state = 'done' AND fingerprint IN (SELECT value FROM json_each(?))`, string(arg))
	if err != nil {
		return nil, fmt.Errorf("looking up done units: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var fp string
		if err := rows.Scan(&fp); err != nil {
			return nil, fmt.Errorf("reading done units: %w", err)
		}
		out[fp] = true
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("reading done units: %w", err)
	}
	return out, nil
}

// GetUnit returns a unit's ledger row.
func (s *Store) GetUnit(ctx context.Context, fingerprint string) (UnitState, error) {
	var u UnitState
	var runID sql.NullString
	var created, updated int64
	var done sql.NullInt64
	err := s.r.QueryRowContext(ctx, `SELECT fingerprint, kind, stage_key, run_id, state, attempts, error,
		created_at, updated_at, done_at FROM units WHERE fingerprint = ?`, fingerprint).
		Scan(&u.Fingerprint, &u.Kind, &u.StageKey, &runID, &u.State, &u.Attempts, &u.Error, &created, &updated, &done)
	if errors.Is(err, sql.ErrNoRows) {
		return u, fmt.Errorf("unit %s: %w", fingerprint, ErrNotFound)
	}
	if err != nil {
		return u, fmt.Errorf("reading unit %s: %w", fingerprint, err)
	}
	u.RunID = runID.String
	u.CreatedAt, u.UpdatedAt, u.DoneAt = fromMS(created), fromMS(updated), nullMS(done)
	return u, nil
}

// StartUnit marks a unit running and counts an attempt. It does nothing to a
// unit that is already done. Optional: CommitUnit works without it; use it
// for long units (training) that write rows before they are done.
func (s *Store) StartUnit(ctx context.Context, u Unit) error {
	return s.writeGrouped(ctx, func(ctx context.Context, tx *sql.Tx) error {
		_, err := startUnit(ctx, tx, u)
		return err
	})
}

const startUnitSQL = `INSERT INTO units (fingerprint, kind, stage_key, run_id, state, attempts, created_at, updated_at)
	VALUES (?, ?, ?, ?, 'running', 1, ?, ?)
	ON CONFLICT (fingerprint) DO UPDATE SET state = 'running', attempts = units.attempts + 1,
	updated_at = excluded.updated_at, run_id = COALESCE(excluded.run_id, units.run_id) WHERE units.state <> 'done'`

// startUnit is ensureUnit counting an attempt, in one statement; it
// reports whether the unit was done (and so left alone).
func startUnit(ctx context.Context, tx *sql.Tx, u Unit) (wasDone bool, err error) {
	if u.Fingerprint == "" {
		return false, fmt.Errorf("unit of stage %s: empty fingerprint", u.StageKey)
	}
	now := nowMS()
	res, err := tx.ExecContext(ctx, startUnitSQL, u.Fingerprint, u.Kind, u.StageKey, nullString(u.RunID), now, now)
	if err != nil {
		return false, fmt.Errorf("marking unit %s running: %w", u.Fingerprint, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("marking unit %s running: %w", u.Fingerprint, err)
	}
	return n == 0, nil
}

// ensureUnit creates the unit row (or moves it back to running) and returns
// its state before the call. It never touches a done unit.
func ensureUnit(ctx context.Context, tx *sql.Tx, u Unit, countAttempt bool) (string, error) {
	if u.Fingerprint == "" {
		return "", fmt.Errorf("unit of stage %s: empty fingerprint", u.StageKey)
	}
	var state string
	err := tx.QueryRowContext(ctx, `SELECT state FROM units WHERE fingerprint = ?`, u.Fingerprint).Scan(&state)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		now := nowMS()
		_, err = tx.ExecContext(ctx, `INSERT INTO units (fingerprint, kind, stage_key, run_id, state, attempts, created_at, updated_at)
			VALUES (?, ?, ?, ?, 'running', 1, ?, ?)`, u.Fingerprint, u.Kind, u.StageKey, nullString(u.RunID), now, now)
		if err != nil {
			return "", fmt.Errorf("creating unit %s: %w", u.Fingerprint, err)
		}
		return "", nil
	case err != nil:
		return "", fmt.Errorf("reading unit %s: %w", u.Fingerprint, err)
	case state == UnitDone:
		return state, nil
	}
	inc := 0
	if countAttempt {
		inc = 1
	}
	_, err = tx.ExecContext(ctx, `UPDATE units SET state = 'running', attempts = attempts + ?, updated_at = ?,
		run_id = COALESCE(?, run_id) WHERE fingerprint = ?`, inc, nowMS(), nullString(u.RunID), u.Fingerprint)
	if err != nil {
		return "", fmt.Errorf("marking unit %s running: %w", u.Fingerprint, err)
	}
	return state, nil
}

// linkUnit records that run uses the unit; cached says it was produced
// before (by this or another run) rather than now. known, when set, is
// what the unit holds for a report (see appendBlocks).
func linkUnit(ctx context.Context, tx *sql.Tx, u Unit, cached bool, known *unitData) error {
	if u.RunID == "" {
		return nil
	}
	res, err := tx.ExecContext(ctx, `INSERT INTO run_units (run_id, fingerprint, stage_key, cached) VALUES (?, ?, ?, ?)
		ON CONFLICT (run_id, fingerprint) DO NOTHING`, u.RunID, u.Fingerprint, u.StageKey, cached)
	if err != nil {
		return fmt.Errorf("linking unit %s to run %s: %w", u.Fingerprint, u.RunID, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("linking unit %s to run %s: %w", u.Fingerprint, u.RunID, err)
	}
	return appendBlocks(ctx, tx, u.RunID, []string{u.Fingerprint}, n, known)
}

// CommitUnit writes a unit's result rows (through fn) and marks the unit
// done, in one transaction. If the unit is already done, fn is not called,
// nothing is inserted and the unit is linked to u.RunID as cached; the call
// returns nil. If fn fails, nothing is written.
func (s *Store) CommitUnit(ctx context.Context, u Unit, fn func(tx *Tx) error) error {
	return s.writeGroupedSums(ctx, func(ctx context.Context, stx *sql.Tx, sm *sums) error {
		// The usual case, a unit StartUnit (or the claim) marked running,
		// takes one statement; its attempt is already counted. The
		// savepoint undoes it if fn fails.
		now := nowMS()
		res, err := stx.ExecContext(ctx, markDoneSQL+` AND state = 'running'`, now, now, nullString(u.RunID), u.Fingerprint)
		if err != nil {
			return fmt.Errorf("marking unit %s done: %w", u.Fingerprint, err)
		}
		n, err := res.RowsAffected()
		if err != nil {
			return fmt.Errorf("marking unit %s done: %w", u.Fingerprint, err)
		}
		if n == 0 {
			prev, err := ensureUnit(ctx, stx, u, prevAttemptMissing(ctx, stx, u.Fingerprint))
			if err != nil {
				return err
			}
			if prev == UnitDone {
				return linkUnit(ctx, stx, u, true, nil)
			}
			if _, err := stx.ExecContext(ctx, markDoneSQL, now, now, nullString(u.RunID), u.Fingerprint); err != nil {
				return fmt.Errorf("marking unit %s done: %w", u.Fingerprint, err)
			}
		}
		t := &Tx{tx: stx, s: s, ctx: ctx, unit: u, sums: sm}
		if fn != nil {
			if err := fn(t); err != nil {
				return fmt.Errorf("writing results of unit %s: %w", u.Fingerprint, err)
			}
		}
		// After the unit's rows: the report's per-unit score sums, for a
		// unit that wrote values. One that did not has none to sum (rows
		// an earlier attempt left are read raw, as for any unit without
		// sums), and no sums row: a done unit is never committed again.
		var known *unitData
		if !t.raw { // what the unit holds is what it inserted
			known = &unitData{fp: u.Fingerprint, eps: t.episodes}
		}
		if t.values {
			scores, judges, err := writeUnitScores(ctx, stx, u.Fingerprint)
			if err != nil {
				return err
			}
			if known != nil {
				known.setScores(scores, judges)
			}
		}
		return linkUnit(ctx, stx, u, false, known)
	})
}

// markDoneSQL marks a unit done by the acting run: every state change
// records the run that made it in units.run_id, whose tallies alone the
// state trigger then updates (migration 0013), so a later run retrying a
// unit never rewrites what an earlier run did.
const markDoneSQL = `UPDATE units SET state = 'done', error = '', updated_at = ?, done_at = ?,
	run_id = COALESCE(?, run_id) WHERE fingerprint = ?`

// prevAttemptMissing says whether CommitUnit must count an attempt itself:
// only when StartUnit did not already mark the unit running.
func prevAttemptMissing(ctx context.Context, tx *sql.Tx, fp string) bool {
	var state string
	err := tx.QueryRowContext(ctx, `SELECT state FROM units WHERE fingerprint = ?`, fp).Scan(&state)
	return err != nil || state != UnitRunning
}

// FailUnit marks a unit failed with its error message (a done unit stays
// done). The failed unit is linked to the run so `results show` lists it.
func (s *Store) FailUnit(ctx context.Context, u Unit, errMsg string) error {
	return s.FailUnitWith(ctx, u, errMsg, nil)
}

// FailUnitWith is FailUnit that also runs fn (the unit's counters) in the
// same transaction, unless the unit is already done.
func (s *Store) FailUnitWith(ctx context.Context, u Unit, errMsg string, fn func(tx *Tx) error) error {
	return s.writeGroupedSums(ctx, func(ctx context.Context, tx *sql.Tx, sm *sums) error {
		prev, err := ensureUnit(ctx, tx, u, prevAttemptMissing(ctx, tx, u.Fingerprint))
		if err != nil {
			return err
		}
		if prev == UnitDone {
			return nil
		}
		if _, err := tx.ExecContext(ctx, `UPDATE units SET state = 'failed', error = ?, updated_at = ?,
			run_id = COALESCE(?, run_id) WHERE fingerprint = ?`, errMsg, nowMS(), nullString(u.RunID), u.Fingerprint); err != nil {
			return fmt.Errorf("marking unit %s failed: %w", u.Fingerprint, err)
		}
		if fn != nil {
			if err := fn(&Tx{tx: tx, s: s, ctx: ctx, unit: u, sums: sm}); err != nil {
				return fmt.Errorf("recording failed unit %s: %w", u.Fingerprint, err)
			}
		}
		return linkUnit(ctx, tx, u, false, nil)
	})
}

// LinkUnits links done units to a run as cached (the runner calls it for
// units it skips because an earlier run produced them). Fingerprints that
// are not done are ignored; the number linked is returned.
func (s *Store) LinkUnits(ctx context.Context, runID, stageKey string, fingerprints []string) (int, error) {
	if len(fingerprints) == 0 {
		return 0, nil
	}
	arg, err := json.Marshal(fingerprints)
	if err != nil {
		return 0, fmt.Errorf("encoding fingerprints: %w", err)
	}
	var n int64
	err = s.writeTx(ctx, func(tx *sql.Tx) error {
		// The units this call links (done, not linked yet), for the
		// run's report blocks, then the links.
		rows, err := tx.QueryContext(ctx, `SELECT u.fingerprint FROM units u
			WHERE u.state = 'done' AND u.fingerprint IN (SELECT value FROM json_each(?2))
			AND NOT EXISTS (SELECT 1 FROM run_units ru WHERE ru.run_id = ?1 AND ru.fingerprint = u.fingerprint)
			ORDER BY u.fingerprint`, runID, string(arg))
		if err != nil {
			return fmt.Errorf("linking units to run %s: %w", runID, err)
		}
		var fps []string
		for rows.Next() {
			var fp string
			if err := rows.Scan(&fp); err != nil {
				rows.Close()
				return fmt.Errorf("linking units to run %s: %w", runID, err)
			}
			fps = append(fps, fp)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return fmt.Errorf("linking units to run %s: %w", runID, err)
		}
		if len(fps) == 0 {
			return nil
		}
		linked, err := json.Marshal(fps)
		if err != nil {
			return fmt.Errorf("encoding fingerprints: %w", err)
		}
		res, err := tx.ExecContext(ctx, `INSERT INTO run_units (run_id, fingerprint, stage_key, cached)
			SELECT ?, value, ?, 1 FROM json_each(?) WHERE true
			ON CONFLICT (run_id, fingerprint) DO NOTHING`, runID, stageKey, string(linked))
		if err != nil {
			return fmt.Errorf("linking units to run %s: %w", runID, err)
		}
		if n, err = res.RowsAffected(); err != nil {
			return err
		}
		return appendBlocks(ctx, tx, runID, fps, n, nil)
	})
	return int(n), err
}

// RunUnitCounts returns, per stage key of a run, how many linked units are
// done, cached (done by an earlier commit) and failed. It reads the
// run_stage_units tallies the writing transactions keep (migration 0007),
// one row per stage.
func (s *Store) RunUnitCounts(ctx context.Context, runID string) (map[string]UnitCounts, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT stage_key, done, cached, failed FROM run_stage_units
		WHERE run_id = ?`, runID)
	if err != nil {
		return nil, fmt.Errorf("counting units of run %s: %w", runID, err)
	}
	defer rows.Close()
	out := make(map[string]UnitCounts)
	for rows.Next() {
		var k string
		var c UnitCounts
		if err := rows.Scan(&k, &c.Done, &c.Cached, &c.Failed); err != nil {
			return nil, fmt.Errorf("reading unit counts: %w", err)
		}
		out[k] = c
	}
	return out, rows.Err()
}

// UnitCounts are a stage's unit tallies from the ledger.
type UnitCounts struct {
	Done   int `json:"done"`   // produced by this run
	Cached int `json:"cached"` // reused from an earlier commit
	Failed int `json:"failed"`
}

// SweepUnitCounts counts the distinct done units the children of sweep
// parentID link: ran are those one of the children produced (a link with
// cached = 0), cached those every child only reused (done before the
// sweep). A unit two variants share counts once, whichever of them ran
// it, so the counts are a fact of the database, the same on identical
// sweeps however their children's timing went.
func (s *Store) SweepUnitCounts(ctx context.Context, parentID string) (ran, cached int, err error) {
	err = s.r.QueryRowContext(ctx, `SELECT COALESCE(SUM(produced), 0), COALESCE(SUM(1 - produced), 0) FROM (
		SELECT MIN(ru.cached) = 0 AS produced FROM run_units ru
		JOIN runs r ON r.id = ru.run_id AND r.parent_id = ?
		JOIN units u ON u.fingerprint = ru.fingerprint AND u.state = 'done'
		GROUP BY ru.fingerprint)`, parentID).Scan(&ran, &cached)
	if err != nil {
		return 0, 0, fmt.Errorf("counting the units of sweep %s: %w", parentID, err)
	}
	return ran, cached, nil
}
