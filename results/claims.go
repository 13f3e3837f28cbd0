package results

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// ClaimUnit claims the unit with fingerprint fp for run runID, so that
// other processes working on the same database wait for it instead of
// executing it too. It returns the run holding the claim afterwards:
// runID when the claim is (now) ours, or the other run, which is live. A
// claim held by a run that is no longer live (finished, or its owner
// process gone; see Run.Live) is taken over.
func (s *Store) ClaimUnit(ctx context.Context, fp, runID string) (string, error) {
	return s.claimUnit(ctx, Unit{Fingerprint: fp, RunID: runID}, false)
}

// ClaimAndStartUnit is ClaimUnit followed, when the claim is u.RunID's, by
// StartUnit, in one transaction. It returns "" (and holds no claim) when
// the unit is already done.
func (s *Store) ClaimAndStartUnit(ctx context.Context, u Unit) (string, error) {
	return s.claimUnit(ctx, u, true)
}

func (s *Store) claimUnit(ctx context.Context, u Unit, start bool) (string, error) {
	var holder string
	err := s.writeGrouped(ctx, func(ctx context.Context, tx *sql.Tx) (err error) {
		holder, err = s.claimIn(ctx, tx, u, start)
		return err
	})
	return holder, err
}

// ClaimAndStartUnits is ClaimAndStartUnit for several units in one write:
// holders[i] is units[i]'s answer. A runner claims the units it is about
// to run a batch ahead, so that a unit does not wait for a group commit
// of its own before its requests go out (docs/benchmarks.md). An error
// claims none of them.
func (s *Store) ClaimAndStartUnits(ctx context.Context, units []Unit) ([]string, error) {
	holders := make([]string, len(units))
	err := s.writeGrouped(ctx, func(ctx context.Context, tx *sql.Tx) error {
		for i, u := range units {
			h, err := s.claimIn(ctx, tx, u, true)
			if err != nil {
				return err
			}
			holders[i] = h
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return holders, nil
}

// claimIn claims unit u for its run in tx (and starts it, with start): see
// ClaimAndStartUnit.
func (s *Store) claimIn(ctx context.Context, tx *sql.Tx, u Unit, start bool) (string, error) {
	fp, runID := u.Fingerprint, u.RunID
	holder := runID
	// The usual case, a unit nobody claims, takes one statement.
	res, err := tx.ExecContext(ctx, `INSERT INTO unit_claims (fingerprint, run_id, claimed_at) VALUES (?, ?, ?)
		ON CONFLICT (fingerprint) DO NOTHING`, fp, runID, nowMS())
	if err != nil {
		return "", fmt.Errorf("claiming unit %s: %w", fp, err)
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		if err = s.reclaim(ctx, tx, fp, runID, &holder); err != nil || holder != runID {
			return holder, err
		}
	}
	if !start {
		return holder, nil
	}
	done, err := startUnit(ctx, tx, u)
	if err == nil && done {
		// committed meanwhile (by another process): nothing to run
		holder = ""
		_, err = tx.ExecContext(ctx, `DELETE FROM unit_claims WHERE fingerprint = ? AND run_id = ?`, fp, runID)
	}
	return holder, err
}

// reclaim handles a unit someone claims already: it leaves it to a live
// other run (setting *holder to it) and takes it over otherwise.
func (s *Store) reclaim(ctx context.Context, tx *sql.Tx, fp, runID string, holder *string) error {
	var owner string
	err := tx.QueryRowContext(ctx, `SELECT run_id FROM unit_claims WHERE fingerprint = ?`, fp).Scan(&owner)
	switch {
	case errors.Is(err, sql.ErrNoRows):
	case err != nil:
		return fmt.Errorf("reading the claim on unit %s: %w", fp, err)
	case owner != runID:
		r, err := scanRun(tx.QueryRowContext(ctx, `SELECT `+runColumns+` FROM runs WHERE id = ?`, owner))
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("reading run %s, which claims unit %s: %w", owner, fp, err)
		}
		if err == nil && r.Live(time.Now()) {
			*holder = owner
			return nil
		}
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO unit_claims (fingerprint, run_id, claimed_at) VALUES (?, ?, ?)
		ON CONFLICT (fingerprint) DO UPDATE SET run_id = excluded.run_id, claimed_at = excluded.claimed_at`,
		fp, runID, nowMS())
	if err != nil {
		return fmt.Errorf("claiming unit %s: %w", fp, err)
	}
	return nil
}

// ReleaseClaim drops the claim of the unit's run on the unit, in the
// unit's transaction.
func (t *Tx) ReleaseClaim() error {
	if _, err := t.exec(`DELETE FROM unit_claims WHERE fingerprint = ? AND run_id = ?`, t.unit.Fingerprint, t.unit.RunID); err != nil {
		return fmt.Errorf("releasing the claim on unit %s: %w", t.unit.Fingerprint, err)
	}
	return nil
}

// ReleaseClaim drops run runID's claim on unit fp (done or failed).
func (s *Store) ReleaseClaim(ctx context.Context, fp, runID string) error {
	if _, err := s.w.ExecContext(ctx, `DELETE FROM unit_claims WHERE fingerprint = ? AND run_id = ?`, fp, runID); err != nil {
		return fmt.Errorf("releasing the claim on unit %s: %w", fp, err)
	}
	return nil
}

// ReleaseClaims drops every claim run runID still holds (when it ends).
func (s *Store) ReleaseClaims(ctx context.Context, runID string) error {
	if _, err := s.w.ExecContext(ctx, `DELETE FROM unit_claims WHERE run_id = ?`, runID); err != nil {
		return fmt.Errorf("releasing the claims of run %s: %w", runID, err)
	}
	return nil
}
