package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"mascot.dev/mascot/results"
	"mascot.dev/mascot/results/report"
)

// openDB opens (creating the file when needed) the results database at
// path for run, plan, sweep and import. Its directory must exist: a
// mistyped --db directory is an error, not a new directory tree.
func openDB(ctx context.Context, path string) (*results.Store, error) {
	if path == "" {
		path = results.DefaultPath
	}
	if err := checkDBDir(path); err != nil {
		return nil, err
	}
	s, err := results.OpenContext(ctx, path)
	if errors.Is(err, results.ErrNotADatabase) {
		return nil, usageError{err}
	}
	if err != nil {
		return nil, fmt.Errorf("opening results database: %w", err)
	}
	return s, nil
}

// checkDBDir refuses a --db whose directory does not exist.
func checkDBDir(path string) error {
	dir := filepath.Dir(path)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return invalid("--db %s: directory %s does not exist (create it first)", path, dir)
	}
	return nil
}

// shown renders a name from a spec or the database for the terminal
// (report.Shown): Go-quoted when it holds control characters.
func shown(s string) string { return report.Shown(s) }
