package results

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
)

// MaxRaterID is the longest rater id (bytes) a preference may carry.
const MaxRaterID = 64

// AddHumanPreferences records raters' choices in one transaction and
// returns their ids. A zero Time means now.
func (s *Store) AddHumanPreferences(ctx context.Context, prefs []HumanPreference) ([]int64, error) {
	ids := make([]int64, len(prefs))
	err := s.writeTx(ctx, func(tx *sql.Tx) error {
		stmt, err := tx.PrepareContext(ctx, `INSERT INTO human_preferences (run_id, rater_id, created_at, context_id,
			systems_json, episodes_json, choice, note, criterion, runs_json) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
		if err != nil {
			return fmt.Errorf("preparing human preferences: %w", err)
		}
		defer stmt.Close()
		for i, p := range prefs {
			if p.RaterID == "" || len(p.RaterID) > MaxRaterID {
				return fmt.Errorf("recording human preference %s: rater id of %d bytes (want 1 to %d)", p.ContextID, len(p.RaterID), MaxRaterID)
			}
			if err := checkChoice(p.Systems, p.Choice); err != nil {
				return fmt.Errorf("recording human preference %s: %w", p.ContextID, err)
			}
			if len(p.Runs) > 0 && len(p.Runs) != len(p.Systems) {
				return fmt.Errorf("recording human preference %s: %d runs for %d systems", p.ContextID, len(p.Runs), len(p.Systems))
			}
			sys, _ := mustJSON(p.Systems, "[]")
			eps, _ := mustJSON(p.EpisodeIDs, "[]")
			runs, _ := mustJSON(p.Runs, "[]")
			res, err := stmt.ExecContext(ctx, nullString(p.RunID), p.RaterID, toMS(p.Time), p.ContextID, sys, eps,
				p.Choice, p.Note, p.Criterion, runs)
			if err != nil {
				return fmt.Errorf("recording human preference %s: %w", p.ContextID, err)
			}
			if ids[i], err = res.LastInsertId(); err != nil {
				return err
			}
		}
		return nil
	})
	return ids, err
}

// HumanPreferences returns the preferences recorded for a run ("" = all).
func (s *Store) HumanPreferences(ctx context.Context, runID string) ([]HumanPreference, error) {
	q := `SELECT ` + prefColumns + ` FROM human_preferences`
	var args []any
	if runID != "" {
		q += ` WHERE run_id = ?`
		args = append(args, runID)
	}
	return s.queryPreferences(ctx, q+` ORDER BY id`, args...)
}

const prefColumns = `id, COALESCE(run_id, ''), rater_id, created_at, context_id, systems_json, episodes_json, choice, note,
	criterion, runs_json`

func (s *Store) queryPreferences(ctx context.Context, q string, args ...any) ([]HumanPreference, error) {
	rows, err := s.r.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("reading human preferences: %w", err)
	}
	defer rows.Close()
	var out []HumanPreference
	for rows.Next() {
		var p HumanPreference
		var t int64
		var sys, eps, runs string
		if err := rows.Scan(&p.ID, &p.RunID, &p.RaterID, &t, &p.ContextID, &sys, &eps, &p.Choice, &p.Note,
			&p.Criterion, &runs); err != nil {
			return nil, fmt.Errorf("reading human preferences: %w", err)
		}
		p.Time = fromMS(t)
		if err := decodeLists(sys, eps, &p.Systems, &p.EpisodeIDs); err != nil {
			return nil, err
		}
		if err := json.Unmarshal([]byte(runs), &p.Runs); err != nil {
			return nil, fmt.Errorf("decoding runs of human preference %d: %w", p.ID, err)
		}
		if len(p.Runs) == 0 {
			p.Runs = nil
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

func decodeLists(sys, eps string, systems *[]string, episodes *[]int64) error {
	if err := json.Unmarshal([]byte(sys), systems); err != nil {
		return fmt.Errorf("decoding systems: %w", err)
	}
	if err := json.Unmarshal([]byte(eps), episodes); err != nil {
		return fmt.Errorf("decoding episode ids: %w", err)
	}
	if len(*episodes) == 0 {
		*episodes = nil
	}
	return nil
}

// Comparisons returns a run's pairwise and three-way judgments.
func (s *Store) Comparisons(ctx context.Context, runID string) ([]Comparison, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT c.id, c.unit_fp, COALESCE(c.run_id, ''), c.judge, c.criterion,
		c.context_id, c.systems_json, c.episodes_json, c.choice, c.rationale, c.raw
		FROM comparisons c WHERE `+inRun("c")+` ORDER BY c.id`, runID)
	if err != nil {
		return nil, fmt.Errorf("reading comparisons of run %s: %w", runID, err)
	}
	defer rows.Close()
	var out []Comparison
	for rows.Next() {
		var c Comparison
		var sys, eps string
		if err := rows.Scan(&c.ID, &c.UnitFP, &c.RunID, &c.Judge, &c.Criterion, &c.ContextID, &sys, &eps, &c.Choice,
			&c.Rationale, &c.Raw); err != nil {
			return nil, fmt.Errorf("reading comparisons of run %s: %w", runID, err)
		}
		if err := decodeLists(sys, eps, &c.Systems, &c.EpisodeIDs); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}
