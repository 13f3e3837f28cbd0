package transfer

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"mascot.dev/mascot/internal/gcpace"
	"mascot.dev/mascot/results"
)

// ImportResult says what Import created.
type ImportResult struct {
	RunID    string `json:"run_id"`
	UnitFP   string `json:"unit_fp"`
	Episodes int    `json:"episodes"`
	Reused   bool   `json:"reused"` // the same file was imported before; its rows were reused
}

// importGCPercent is the collector's target while Import runs, at least
// (gcpace gives it 64 MiB of room besides): the import allocates a stream
// of short-lived values (decoded records, row values). Measured when the
// unit kept every line of the file alive (a live heap of hundreds of
// megabytes, since fixed in results.Tx.noteEpisode), 300 % was faster
// than 64 MiB of room alone; with the live heap now at 10-20 MB the room
// decides.
const importGCPercent = 300

// ErrBadRecord is returned (wrapped, with the line number) by Import for a
// line that is not a MASCOT JSONL record.
var ErrBadRecord = errors.New("bad record")

// Import creates a run named runName (the file name if "") from a
// MASCOT JSONL file, so that conversations produced elsewhere (the Python
// original) can be judged and reported. run_config.json and
// run_summary.json beside the file, when present, become the run's config
// and summary. The file is one unit whose fingerprint is the hash of its
// bytes: importing the same file again creates a run that reuses the rows.
// Valence and domain are taken from the record's own keys, else derived
// from initial_emotion or meeting by the rules of internal/labels. A
// record's "mode" key (Export writes one) becomes the episode's mode, so
// an exported training episode is a training episode of the imported run;
// without one the mode is results.ModeImported. The keys stay on the
// record, so exporting the imported run writes them back unchanged.
func Import(ctx context.Context, s *results.Store, path, runName string) (ImportResult, error) {
	var res ImportResult
	defer gcpace.Raise(importGCPercent)()
	data, release, err := readInput(path)
	if err != nil {
		return res, fmt.Errorf("importing %s: %w", path, err)
	}
	defer func() { _ = release() }()
	sum := sha256.Sum256(data)
	res.UnitFP = "import-" + hex.EncodeToString(sum[:])
	if runName == "" {
		runName = filepath.Base(path)
	}
	dir := filepath.Dir(path)
	run := results.Run{ID: results.NewRunID(), Name: runName, ConfigName: "import:" + filepath.Base(path), Status: results.RunImported,
		Command: "import " + path}
	run.ConfigJSON = readJSONIfExists(filepath.Join(dir, RunConfigFile))
	run.Summary = readJSONIfExists(filepath.Join(dir, RunSummaryFile))
	if err := s.CreateRun(ctx, run); err != nil {
		return res, err
	}
	res.RunID = run.ID
	u := results.Unit{Fingerprint: res.UnitFP, Kind: "import", StageKey: "import", RunID: run.ID}
	restore, err := s.TuneForBulk(ctx)
	if err != nil {
		return res, fmt.Errorf("importing %s: %w", path, err)
	}
	called := false
	err = s.CommitUnit(ctx, u, func(tx *results.Tx) error {
		called = true
		n, err := importLines(ctx, data, tx)
		res.Episodes = n
		return err
	})
	err = errors.Join(err, restore())
	if err != nil {
		// The unit's transaction rolled back; removing the run too leaves
		// the database as it was before the import.
		return res, fmt.Errorf("importing %s: %w", path, errors.Join(err, dropImportRun(ctx, s, run.ID)))
	}
	if !called {
		res.Reused = true
		if res.Episodes, err = s.UnitEpisodes(ctx, u.Fingerprint); err != nil {
			return res, fmt.Errorf("importing %s: %w", path, err)
		}
	}
	st := results.Stage{RunID: run.ID, Key: "import", Kind: "import", Fingerprint: u.Fingerprint, Status: "done",
		UnitsTotal: 1, UnitsDone: 1}
	if res.Reused {
		st.UnitsDone, st.UnitsCached = 0, 1
	}
	if err := s.UpsertStage(ctx, st); err != nil {
		return res, err
	}
	return res, s.FinishRun(ctx, run.ID, results.RunImported, "")
}

// dropImportRun removes the run a failed import created, before anything
// else referred to it.
func dropImportRun(ctx context.Context, s *results.Store, runID string) error {
	ctx = context.WithoutCancel(ctx) // also after the import was cancelled
	if _, err := s.RemoveRuns(ctx, []string{runID}, false); err != nil {
		return fmt.Errorf("removing the failed import's run %s: %w", runID, err)
	}
	return nil
}

// readJSONIfExists returns a file's JSON, or nil when it is absent or not JSON.
func readJSONIfExists(path string) json.RawMessage {
	b, err := os.ReadFile(path)
	if err != nil || !json.Valid(b) {
		return nil
	}
	var c bytes.Buffer
	if json.Compact(&c, b) != nil {
		return nil
	}
	return c.Bytes()
}

// ImportNew is Import into a database that does not exist yet at dbPath:
// the database is filled in a temporary file (results.Fresh) and appears
// at dbPath only once the import is complete; a failed or killed import
// leaves none.
func ImportNew(ctx context.Context, dbPath, path, runName string) (ImportResult, error) {
	f, err := results.CreateFresh(ctx, dbPath)
	if err != nil {
		return ImportResult{}, fmt.Errorf("importing %s: %w", path, err)
	}
	res, err := Import(ctx, f.Store, path, runName)
	if err != nil {
		return res, errors.Join(err, f.Discard())
	}
	return res, f.Publish(ctx)
}
