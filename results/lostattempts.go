package results

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// SettleLost counts the attempts that runs no longer live (a killed
// process's) had in flight: those of their journals never settled, and
// the open llm_attempts rows that versions before migration 0015 left.
// They are marked lost and counted in their run's llm.<role>.attempts
// (journals only: an open row was counted when recorded) and
// llm.<role>.lost_in_flight; runs still live (another process's) are left
// alone. It also drops what llm_settled holds of dead runs whose journal
// is gone. It returns how many attempts it found lost.
func (s *Store) SettleLost(ctx context.Context) (int, error) {
	now := time.Now()
	deadRuns := map[string]bool{}
	var lookErr error
	dead := func(id string) bool {
		if d, ok := deadRuns[id]; ok {
			return d
		}
		r, err := s.GetRun(ctx, id)
		if err != nil && !errors.Is(err, ErrNotFound) {
			lookErr = err
			return false
		}
		deadRuns[id] = err != nil || !r.Live(now) // a deleted run's attempts are lost too
		return deadRuns[id]
	}
	n, err := s.settleLogs(ctx, dead)
	if err == nil {
		err = lookErr
	}
	if err != nil {
		return n, err
	}
	m, err := s.settleOpenRows(ctx, dead)
	if err == nil {
		err = s.dropOrphanSettled(ctx, dead)
	}
	if err == nil {
		err = lookErr
	}
	return n + m, err
}

// settleOpenRows settles the open llm_attempts rows of dead runs, which
// versions before migration 0015 wrote (counted when recorded).
func (s *Store) settleOpenRows(ctx context.Context, dead func(string) bool) (int, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT DISTINCT run_id FROM llm_attempts WHERE lost = 0`)
	if err != nil {
		return 0, fmt.Errorf("reading open LLM attempts: %w", err)
	}
	var runIDs []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return 0, fmt.Errorf("reading open LLM attempts: %w", err)
		}
		runIDs = append(runIDs, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, fmt.Errorf("reading open LLM attempts: %w", err)
	}
	var gone []string
	for _, id := range runIDs {
		if dead(id) {
			gone = append(gone, id)
		}
	}
	if len(gone) == 0 {
		return 0, nil
	}
	arg, err := json.Marshal(gone)
	if err != nil {
		return 0, fmt.Errorf("encoding run ids: %w", err)
	}
	n := 0
	err = s.writeGroupedSums(ctx, func(ctx context.Context, tx *sql.Tx, sm *sums) error {
		rows, err := tx.QueryContext(ctx, `SELECT run_id, stage_key, role, COUNT(*) FROM llm_attempts
			WHERE lost = 0 AND run_id IN (SELECT value FROM json_each(?)) GROUP BY run_id, stage_key, role`, string(arg))
		if err != nil {
			return fmt.Errorf("reading lost LLM attempts: %w", err)
		}
		type lost struct {
			run, stage, role string
			k                int
		}
		var found []lost
		for rows.Next() {
			var l lost
			if err := rows.Scan(&l.run, &l.stage, &l.role, &l.k); err != nil {
				rows.Close()
				return fmt.Errorf("reading lost LLM attempts: %w", err)
			}
			found = append(found, l)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return fmt.Errorf("reading lost LLM attempts: %w", err)
		}
		for _, l := range found {
			if runExists(ctx, tx, l.run) {
				sm.addCounters(l.run, l.stage, map[string]int64{LostCounter(l.role): int64(l.k)})
			}
			n += l.k
		}
		_, err = tx.ExecContext(ctx, `UPDATE llm_attempts SET lost = 1 WHERE lost = 0
			AND run_id IN (SELECT value FROM json_each(?))`, string(arg))
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("settling lost LLM attempts: %w", err)
	}
	return n, nil
}

// dropOrphanSettled drops the llm_settled rows of dead runs that have no
// journal left (a crash between a journal's removal and its rows').
func (s *Store) dropOrphanSettled(ctx context.Context, dead func(string) bool) error {
	rows, err := s.r.QueryContext(ctx, `SELECT DISTINCT run_id FROM llm_settled`)
	if err != nil {
		return fmt.Errorf("reading settled LLM attempts: %w", err)
	}
	var runs []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return fmt.Errorf("reading settled LLM attempts: %w", err)
		}
		runs = append(runs, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil || len(runs) == 0 {
		return err
	}
	logs, err := s.attemptLogs()
	if err != nil {
		return err
	}
	for _, id := range runs {
		if _, ok := logs[id]; !ok && dead(id) {
			if err := s.dropSettled(ctx, id); err != nil {
				return err
			}
		}
	}
	return nil
}

// runExists says whether run id has a row (counters reference runs).
func runExists(ctx context.Context, tx *sql.Tx, id string) bool {
	var one int
	return tx.QueryRowContext(ctx, `SELECT 1 FROM runs WHERE id = ?`, id).Scan(&one) == nil
}

// LostAttempts returns the ids of the attempts marked lost (for tests and
// audits that reconcile a server's log with the store).
func (s *Store) LostAttempts(ctx context.Context) ([]string, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT id FROM llm_attempts WHERE lost = 1 ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("reading lost LLM attempts: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("reading lost LLM attempts: %w", err)
		}
		out = append(out, id)
	}
	return out, rows.Err()
}
