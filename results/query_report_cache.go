package results

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync"
)

// Stored results (migration 0010): a computed report result is kept in
// report_cache under a key, with the stamps of the runs it reads; triggers
// bump a run's stamp in the transaction of every write its report tables
// read (links, episodes, judgments, metrics of its units), so an entry is
// served only while nothing it depends on has changed.

// CachedResult returns the body stored under key for runIDs (the entry
// belongs to runIDs[0]; the key must name every run it reads) when the
// runs' stamps still equal those it was stored with. On a miss, body is
// nil and stamps are the runs' current stamps, taken before the caller
// reads any data: StoreResult with them stores an entry that a write in
// between leaves unservable. A run without a stamp gets one (a write);
// when that write fails (a read-only database, say), stamps is empty and
// the caller should compute without storing, err telling why.
func (s *Store) CachedResult(ctx context.Context, key string, runIDs []string) (body []byte, stamps string, err error) {
	if len(runIDs) == 0 {
		return nil, "", errors.New("looking up a stored result: no runs")
	}
	stamps, complete, err := s.stampsOf(ctx, runIDs)
	if err != nil {
		return nil, "", err
	}
	if !complete {
		if err := s.addStamps(ctx, runIDs); err != nil {
			return nil, "", fmt.Errorf("stamping runs for the result cache: %w", err)
		}
		stamps, complete, err = s.stampsOf(ctx, runIDs)
		if err != nil {
			return nil, "", err
		}
		if !complete {
			return nil, "", fmt.Errorf("stamping runs for the result cache: a run of %v does not exist", runIDs)
		}
		return nil, stamps, nil
	}
	var stored string
	err = s.r.QueryRowContext(ctx, `SELECT stamps, body FROM report_cache WHERE run_id = ? AND key = ?`,
		runIDs[0], key).Scan(&stored, &body)
	if errors.Is(err, sql.ErrNoRows) || (err == nil && stored != stamps) {
		return nil, stamps, nil
	}
	if err != nil {
		return nil, "", fmt.Errorf("reading stored result %q: %w", key, err)
	}
	return body, stamps, nil
}

// StoreResult stores body under key for runIDs[0], computed from data no
// older than stamps (from CachedResult's miss).
func (s *Store) StoreResult(ctx context.Context, key string, runIDs []string, stamps string, body []byte) error {
	if len(runIDs) == 0 || stamps == "" {
		return errors.New("storing a result: no runs or stamps")
	}
	return s.cacheTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO report_cache (run_id, key, stamps, body) VALUES (?, ?, ?, ?)
			ON CONFLICT (run_id, key) DO UPDATE SET stamps = excluded.stamps, body = excluded.body`,
			runIDs[0], key, stamps, body)
		if err != nil {
			return fmt.Errorf("storing result %q: %w", key, err)
		}
		return nil
	})
}

// ForgetResults deletes the stored results of a run (every key), so the
// next request computes afresh.
func (s *Store) ForgetResults(ctx context.Context, runID string) error {
	return s.writeTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM report_cache WHERE run_id = ?`, runID); err != nil {
			return fmt.Errorf("forgetting stored results of %s: %w", runID, err)
		}
		return nil
	})
}

// stampsOf returns the runs' stamps joined in order ("epoch:version,..."),
// and whether every run has one.
func (s *Store) stampsOf(ctx context.Context, runIDs []string) (string, bool, error) {
	parts := make([]string, len(runIDs))
	for i, id := range runIDs {
		err := s.r.QueryRowContext(ctx, `SELECT epoch || ':' || version FROM report_stamps WHERE run_id = ?`, id).
			Scan(&parts[i])
		if errors.Is(err, sql.ErrNoRows) {
			return "", false, nil
		}
		if err != nil {
			return "", false, fmt.Errorf("reading the stamp of run %s: %w", id, err)
		}
	}
	return strings.Join(parts, ","), true, nil
}

// addStamps gives the runs that have none a stamp with a fresh epoch.
func (s *Store) addStamps(ctx context.Context, runIDs []string) error {
	return s.cacheTx(ctx, func(tx *sql.Tx) error {
		for _, id := range runIDs {
			_, err := tx.ExecContext(ctx, `INSERT INTO report_stamps (run_id, epoch)
				SELECT id, lower(hex(randomblob(8))) FROM runs WHERE id = ? ON CONFLICT (run_id) DO NOTHING`, id)
			if err != nil {
				return fmt.Errorf("stamping run %s: %w", id, err)
			}
		}
		return nil
	})
}

// cacheBusyMS is how long a write to the report cache waits for the
// database: a report never waits long behind a long write (an import is one
// transaction); it is computed and served without being stored instead.
const cacheBusyMS = 250

// cacheWriter is the report cache's own writer connection, opened on first
// use with the short busy timeout.
type cacheWriter struct {
	once sync.Once
	db   *sql.DB
	err  error
}

func (c *cacheWriter) close() error {
	if c.db == nil {
		return nil
	}
	return c.db.Close()
}

// cacheTx runs fn in one write transaction on the cache's writer.
func (s *Store) cacheTx(ctx context.Context, fn func(*sql.Tx) error) error {
	s.cache.once.Do(func() {
		db, err := sql.Open("sqlite3", dsnWaiting(s.path, false, cacheBusyMS))
		if err != nil {
			s.cache.err = fmt.Errorf("opening the report cache's writer: %w", err)
			return
		}
		db.SetMaxOpenConns(1)
		s.cache.db = db
	})
	if s.cache.err != nil {
		return s.cache.err
	}
	tx, err := s.cache.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("beginning a report cache write: %w", err)
	}
	if err := fn(tx); err != nil {
		return errors.Join(err, tx.Rollback())
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("committing a report cache write: %w", err)
	}
	return nil
}
