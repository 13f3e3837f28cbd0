package results

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"
)

// jsonOr returns raw as a string, or def when raw is empty.
func jsonOr(raw json.RawMessage, def string) string {
	if len(raw) == 0 {
		return def
	}
	return string(raw)
}

// nullString maps "" to NULL.
func nullString(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// nullTime maps the zero time to NULL and others to unix milliseconds.
func nullTime(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UnixMilli()
}

// CreateRun records a new run. A zero StartedAt means now; an empty Status
// means "running".
func (s *Store) CreateRun(ctx context.Context, r Run) error {
	if r.ID == "" {
		return fmt.Errorf("creating run: empty id")
	}
	if r.Status == "" {
		r.Status = RunRunning
	}
	return s.writeTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO runs
			(id, name, parent_id, config_name, config_json, axes_json, command, status, started_at, finished_at,
			 summary_json, owner_pid, owner_host, heartbeat_at, code_json)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			r.ID, r.Name, nullString(r.ParentID), r.ConfigName, jsonOr(r.ConfigJSON, "{}"),
			jsonOr(r.AxesJSON, "{}"), r.Command, r.Status, toMS(r.StartedAt), nullTime(r.FinishedAt),
			jsonOr(r.Summary, "{}"), r.OwnerPID, r.OwnerHost, nullTime(r.HeartbeatAt), jsonOr(r.Code, "{}"))
		if err != nil {
			return fmt.Errorf("creating run %s: %w", r.ID, err)
		}
		// Its report blocks start empty and current; every unit linked to
		// the run adds its entry (report_blocks.go).
		return startBlocks(ctx, tx, r.ID)
	})
}

// SetRunStatus changes a run's status without finishing it (for example
// back to "running" when a rerun resumes it).
func (s *Store) SetRunStatus(ctx context.Context, id, status string) error {
	res, err := s.w.ExecContext(ctx, `UPDATE runs SET status = ?, finished_at = NULL WHERE id = ?`, status, id)
	if err != nil {
		return fmt.Errorf("setting status of run %s: %w", id, err)
	}
	return mustAffect(res, "run", id)
}

// FinishRun sets a run's final status, finish time and summary JSON
// (the contents of run_summary.json; "" keeps the stored one).
//
// On a full disk the run's end must still be recorded, or it would read as
// running (then interrupted) instead of failed: the write is retried after
// freeing the space Reserve kept and a checkpoint (which moves the WAL's
// pages into the database, using that space, and resets the WAL, so the
// update reuses space the WAL file already holds), and then without the
// summary (a few bytes).
func (s *Store) FinishRun(ctx context.Context, id, status, summaryJSON string) error {
	update := func(summary string) (sql.Result, error) {
		if summary == "" {
			return s.w.ExecContext(ctx, `UPDATE runs SET status = ?, finished_at = ? WHERE id = ?`, status, nowMS(), id)
		}
		return s.w.ExecContext(ctx, `UPDATE runs SET status = ?, finished_at = ?, summary_json = ? WHERE id = ?`,
			status, nowMS(), summary, id)
	}
	res, err := update(summaryJSON)
	if err != nil && isFull(err) {
		s.reserve.free()
		_, _ = s.w.ExecContext(ctx, `PRAGMA wal_checkpoint(RESTART)`)
		if res, err = update(summaryJSON); err != nil && summaryJSON != "" {
			res, err = update("")
		}
	}
	if err != nil {
		return fmt.Errorf("finishing run %s: %w", id, err)
	}
	return mustAffect(res, "run", id)
}

func mustAffect(res sql.Result, what, id string) error {
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("updating %s %s: %w", what, id, err)
	}
	if n == 0 {
		return fmt.Errorf("updating %s %s: %w", what, id, ErrNotFound)
	}
	return nil
}

// UpsertStage inserts or replaces a stage row of a run.
func (s *Store) UpsertStage(ctx context.Context, st Stage) error {
	_, err := s.w.ExecContext(ctx, `INSERT INTO stages
		(run_id, key, kind, fingerprint, status, units_total, units_done, units_cached, units_failed, error, started_at, finished_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (run_id, key) DO UPDATE SET
		  kind = excluded.kind, fingerprint = excluded.fingerprint, status = excluded.status,
		  units_total = excluded.units_total, units_done = excluded.units_done,
		  units_cached = excluded.units_cached, units_failed = excluded.units_failed,
		  error = excluded.error,
		  started_at = COALESCE(excluded.started_at, stages.started_at),
		  finished_at = excluded.finished_at`,
		st.RunID, st.Key, st.Kind, st.Fingerprint, orDefault(st.Status, "pending"), st.UnitsTotal,
		st.UnitsDone, st.UnitsCached, st.UnitsFailed, st.Error, nullTime(st.StartedAt), nullTime(st.FinishedAt))
	if err != nil {
		return fmt.Errorf("saving stage %s of run %s: %w", st.Key, st.RunID, err)
	}
	return nil
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// AddCounters adds each counter's value to the stored one (creating it at
// 0). stageKey "" addresses the run-level counters.
func (s *Store) AddCounters(ctx context.Context, runID, stageKey string, counters map[string]int64) error {
	return s.putCounters(ctx, runID, stageKey, counters, "counters.value + excluded.value")
}

// SetCounters overwrites counters (for gauges such as latency percentiles).
func (s *Store) SetCounters(ctx context.Context, runID, stageKey string, counters map[string]int64) error {
	return s.putCounters(ctx, runID, stageKey, counters, "excluded.value")
}

func (s *Store) putCounters(ctx context.Context, runID, stageKey string, counters map[string]int64, expr string) error {
	if len(counters) == 0 {
		return nil
	}
	return s.writeTx(ctx, func(tx *sql.Tx) error {
		stmt, err := tx.PrepareContext(ctx, `INSERT INTO counters (run_id, stage_key, name, value) VALUES (?, ?, ?, ?)
			ON CONFLICT (run_id, stage_key, name) DO UPDATE SET value = `+expr)
		if err != nil {
			return fmt.Errorf("preparing counters: %w", err)
		}
		defer stmt.Close()
		for name, v := range counters {
			if _, err := stmt.ExecContext(ctx, runID, stageKey, name, v); err != nil {
				return fmt.Errorf("adding counter %s of run %s: %w", name, runID, err)
			}
		}
		return nil
	})
}
