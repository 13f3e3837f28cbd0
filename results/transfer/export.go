package transfer

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"mascot.dev/mascot/internal/gcpace"
	"mascot.dev/mascot/results"
	"mascot.dev/mascot/results/jsonl"
)

// Names of the files Export writes.
const (
	ConversationsFile = "conversations.jsonl"
	RunConfigFile     = "run_config.json"
	RunSummaryFile    = "run_summary.json"
)

// Keys Export adds to every record (beside the MASCOT JSONL schema):
// the stage key that generated the episode and its mode (results.ModeEval,
// ModeIndependent, ModeBranching, ModeImported). A record that already has
// them (an imported export) keeps its own values, so export, import and
// export again give the same records.
const (
	RecordStageKey = "stage"
	RecordModeKey  = "mode"
)

// ExportOptions select what Export writes.
type ExportOptions struct {
	// IncludeTraining also writes the run's training-time episodes
	// (results.TrainingModes); by default only its evaluation episodes are written.
	IncludeTraining bool `json:"include_training"`
}

// ExportResult says what Export wrote.
type ExportResult struct {
	Dir      string `json:"dir"`
	Path     string `json:"path"`     // the JSONL file
	Episodes int    `json:"episodes"` // records written
	// Training counts the training-time episodes written (with
	// IncludeTraining), LeftOut those not written (without).
	Training int `json:"training_episodes"`
	LeftOut  int `json:"training_left_out"`
}

// ErrWouldOverwrite is wrapped by Export's error for a folder that
// already holds one of the files it writes.
var ErrWouldOverwrite = errors.New("already exists; an export does not overwrite files")

// Export writes a run's evaluation episodes (and with
// opts.IncludeTraining, or when it has no evaluation episode at all
// (CoversTraining), its training-time ones) to dir/conversations.jsonl
// in the MASCOT JSONL format (schema_version 1.0, metadata block), each
// record with its stage and mode (RecordStageKey, RecordModeKey), with
// run_config.json (the resolved config) and run_summary.json (counters,
// timing, status) beside it. Files are written whole or not at all.
func Export(ctx context.Context, s *results.Store, runID, dir string, opts ExportOptions) (ExportResult, error) {
	res := ExportResult{Dir: dir, Path: filepath.Join(dir, ConversationsFile)}
	// A stream of short-lived records and lines over a live heap of a few
	// megabytes: at Go's default target the collector ran every few
	// megabytes of it, a fifth of an export's CPU (gcpace).
	defer gcpace.Raise(100)()
	run, err := s.GetRun(ctx, runID)
	if err != nil {
		return res, fmt.Errorf("exporting run %s: %w", runID, err)
	}
	training, err := s.CoversTraining(ctx, runID, results.Scope{IncludeTraining: opts.IncludeTraining})
	if err != nil {
		return res, fmt.Errorf("exporting run %s: %w", runID, err)
	}
	// An export never replaces files: a folder holding an earlier export
	// (or anything by these names) is refused before anything is written.
	for _, name := range []string{ConversationsFile, RunConfigFile, RunSummaryFile} {
		if _, err := os.Lstat(filepath.Join(dir, name)); err == nil {
			return res, fmt.Errorf("exporting run %s: %s: %w (choose another --out, or move it away)", runID, filepath.Join(dir, name), ErrWouldOverwrite)
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return res, fmt.Errorf("creating export directory: %w", err)
	}
	err = writeAtomic(res.Path, func(w *bufio.Writer) error {
		return writeRecords(ctx, s, runID, training, w, &res)
	})
	if err != nil {
		return res, fmt.Errorf("exporting run %s: %w", runID, err)
	}
	if !training {
		if res.LeftOut, err = s.OutsideEvaluation(ctx, runID); err != nil {
			return res, fmt.Errorf("exporting run %s: %w", runID, err)
		}
	}
	if err := writeJSONFile(filepath.Join(dir, RunConfigFile), run.ConfigJSON); err != nil {
		return res, err
	}
	summary, err := Summary(ctx, s, runID)
	if err != nil {
		return res, err
	}
	if err := writeJSONFile(filepath.Join(dir, RunSummaryFile), summary); err != nil {
		return res, err
	}
	return res, nil
}

// labelRecord adds the stage and mode keys to an episode's record unless
// it carries them already.
func labelRecord(e *results.Episode, stage string) {
	if e.Extra == nil {
		e.Extra = map[string]json.RawMessage{}
	}
	for k, v := range map[string]string{RecordStageKey: stage, RecordModeKey: e.Mode} {
		if _, ok := e.Extra[k]; ok {
			continue
		}
		e.Extra[k] = jsonl.AppendString(nil, v)
	}
}

// Summary builds the run_summary.json object: the summary the runner stored
// at FinishRun, completed with status, timing, counters and unit tallies
// from the database (stored keys win).
func Summary(ctx context.Context, s *results.Store, runID string) (json.RawMessage, error) {
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
		if _, err := w.Write(b); err != nil {
			return err
		}
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
	// CreateTemp makes the file 0600; an export is for others to read, as
	// a file os.Create makes (0644 under the usual umask).
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
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
