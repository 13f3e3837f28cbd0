package results

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// Names of the files ExportJSONL writes.
const (
	ConversationsFile = "conversations.jsonl"
	RunConfigFile     = "run_config.json"
	RunSummaryFile    = "run_summary.json"
)

// ExportResult says what ExportJSONL wrote.
type ExportResult struct {
	Dir      string `json:"dir"`
	Path     string `json:"path"` // the JSONL file
	Episodes int    `json:"episodes"`
}

// ForEachEpisode streams a run's episodes with their turns, ordered by id,
// without loading the run into memory.
func (s *Store) ForEachEpisode(ctx context.Context, runID string, fn func(*Episode) error) error {
	erows, err := s.r.QueryContext(ctx, `SELECT `+episodeColumns+` FROM episodes e WHERE `+inRun("e")+
		` ORDER BY e.id`, runID)
	if err != nil {
		return fmt.Errorf("reading episodes of run %s: %w", runID, err)
	}
	defer erows.Close()
	trows, err := s.r.QueryContext(ctx, `SELECT `+turnColumns+` FROM turns t JOIN episodes e ON e.id = t.episode_id
		WHERE `+inRun("e")+` ORDER BY t.episode_id, t.turn_idx`, runID)
	if err != nil {
		return fmt.Errorf("reading turns of run %s: %w", runID, err)
	}
	defer trows.Close()
	var pending *Turn
	for erows.Next() {
		e, err := scanEpisode(erows)
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
		if err := fn(e); err != nil {
			return err
		}
	}
	if err := erows.Err(); err != nil {
		return fmt.Errorf("reading episodes of run %s: %w", runID, err)
	}
	return trows.Err()
}

// ExportJSONL writes a run's episodes to dir/conversations.jsonl in the
// MASCOT JSONL format (schema_version 1.0, metadata block), with
// run_config.json (the resolved config) and run_summary.json (counters,
// timing, status) beside it. Files are written whole or not at all.
func (s *Store) ExportJSONL(ctx context.Context, runID, dir string) (ExportResult, error) {
	res := ExportResult{Dir: dir, Path: filepath.Join(dir, ConversationsFile)}
	run, err := s.GetRun(ctx, runID)
	if err != nil {
		return res, fmt.Errorf("exporting run %s: %w", runID, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return res, fmt.Errorf("creating export directory: %w", err)
	}
	err = writeAtomic(res.Path, func(w *bufio.Writer) error {
		return s.ForEachEpisode(ctx, runID, func(e *Episode) error {
			line, err := EncodeRecord(e)
			if err != nil {
				return err
			}
			w.Write(line)
			res.Episodes++
			return w.WriteByte('\n')
		})
	})
	if err != nil {
		return res, fmt.Errorf("exporting run %s: %w", runID, err)
	}
	if err := writeJSONFile(filepath.Join(dir, RunConfigFile), run.ConfigJSON); err != nil {
		return res, err
	}
	summary, err := s.Summary(ctx, runID)
	if err != nil {
		return res, err
	}
	if err := writeJSONFile(filepath.Join(dir, RunSummaryFile), summary); err != nil {
		return res, err
	}
	return res, nil
}

// Summary builds the run_summary.json object: the summary the runner stored
// at FinishRun, completed with status, timing, counters and unit tallies
// from the database (stored keys win).
func (s *Store) Summary(ctx context.Context, runID string) (json.RawMessage, error) {
	d, err := s.GetRunDetail(ctx, runID)
	if err != nil {
		return nil, err
	}
	out := map[string]any{
		"run_id": d.Run.ID, "name": d.Run.Name, "config_name": d.Run.ConfigName, "status": d.Run.Status,
		"started_at": d.Run.StartedAt, "duration_seconds": d.Run.Duration().Seconds(),
		"counters": d.Counters, "stage_counters": d.StageCounters, "units": d.UnitCounts, "episodes": d.Episodes,
	}
	if d.Run.ParentID != "" {
		out["parent_id"] = d.Run.ParentID
	}
	if !d.Run.FinishedAt.IsZero() {
		out["finished_at"] = d.Run.FinishedAt
	}
	var stored map[string]any
	if len(d.Run.Summary) > 0 && json.Unmarshal(d.Run.Summary, &stored) == nil {
		for k, v := range stored {
			out[k] = v
		}
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encoding summary of run %s: %w", runID, err)
	}
	return b, nil
}

func writeJSONFile(path string, raw json.RawMessage) error {
	if len(raw) == 0 {
		raw = json.RawMessage("{}")
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return writeAtomic(path, func(w *bufio.Writer) error {
		w.Write(b)
		return w.WriteByte('\n')
	})
}

// writeAtomic writes a file through a temporary file and a rename.
func writeAtomic(path string, fill func(*bufio.Writer) error) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	defer os.Remove(f.Name())
	w := bufio.NewWriterSize(f, 1<<20)
	if err := fill(w); err != nil {
		f.Close()
		return err
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}
