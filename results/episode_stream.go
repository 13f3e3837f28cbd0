package results

import (
	"context"
	"fmt"
)

// ForEachEpisode streams a run's episodes (all of them) with their turns,
// ordered by id, without loading the run into memory.
func (s *Store) ForEachEpisode(ctx context.Context, runID string, fn func(*Episode) error) error {
	return s.ForEachStagedEpisode(ctx, runID, true, func(e *Episode, _ string) error { return fn(e) })
}

// ForEachStagedEpisode streams the run's evaluation episodes, and its
// training-time ones when training is set, ordered by id, each with its
// turns and the run's stage key of the unit that generated it.
func (s *Store) ForEachStagedEpisode(ctx context.Context, runID string, training bool, fn func(*Episode, string) error) error {
	only := ``
	if !training {
		only = ` AND ` + evaluationSQL("e")
	}
	erows, err := s.r.QueryContext(ctx, `SELECT `+episodeColumns+`, COALESCE((SELECT ru.stage_key FROM run_units ru
		WHERE ru.run_id = ? AND ru.fingerprint = e.unit_fp), '') FROM episodes e WHERE `+inRun("e")+only+
		` ORDER BY e.id`, runID, runID)
	if err != nil {
		return fmt.Errorf("reading episodes of run %s: %w", runID, err)
	}
	defer erows.Close()
	trows, err := s.r.QueryContext(ctx, `SELECT `+turnColumns+` FROM turns t JOIN episodes e ON e.id = t.episode_id
		WHERE `+inRun("e")+only+` ORDER BY t.episode_id, t.turn_idx`, runID)
	if err != nil {
		return fmt.Errorf("reading turns of run %s: %w", runID, err)
	}
	defer trows.Close()
	var pending *Turn
	for erows.Next() {
		var stage string
		e, err := scanEpisode(withStage{erows, &stage})
		if err != nil {
			return fmt.Errorf("reading episodes of run %s: %w", runID, err)
		}
		for {
			if pending == nil {
				if !trows.Next() {
					break
				}
				t, err := scanTurn(trows)
				if err != nil {
					return fmt.Errorf("reading turns of run %s: %w", runID, err)
				}
				pending = &t
			}
			if pending.EpisodeID != e.ID {
				break
			}
			e.Turns = append(e.Turns, *pending)
			pending = nil
		}
		if err := fn(e, stage); err != nil {
			return err
		}
	}
	if err := erows.Err(); err != nil {
		return fmt.Errorf("reading episodes of run %s: %w", runID, err)
	}
	return trows.Err()
}

// withStage scans the episode columns and then the stage key.
type withStage struct {
	sc    interface{ Scan(...any) error }
	stage *string
}

func (w withStage) Scan(dest ...any) error { return w.sc.Scan(append(dest, w.stage)...) }

// OutsideEvaluation counts the run's episodes outside the evaluation
// population (training-time and chat ones: what an export leaves out
// unless asked).
func (s *Store) OutsideEvaluation(ctx context.Context, runID string) (int, error) {
	var n int
	err := s.r.QueryRowContext(ctx, `SELECT COUNT(*) FROM episodes e WHERE `+inRun("e")+` AND NOT (`+
		evaluationSQL("e")+`)`, runID).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("counting training episodes of run %s: %w", runID, err)
	}
	return n, nil
}

// UnitEpisodes counts the episodes a unit holds.
func (s *Store) UnitEpisodes(ctx context.Context, fp string) (int, error) {
	var n int
	if err := s.r.QueryRowContext(ctx, `SELECT COUNT(*) FROM episodes WHERE unit_fp = ?`, fp).Scan(&n); err != nil {
		return 0, fmt.Errorf("counting episodes of unit %s: %w", fp, err)
	}
	return n, nil
}
