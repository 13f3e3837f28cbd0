package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"mascot.dev/mascot/results"
)

// openDB opens (creating the file when needed) the results database at
// path for run, plan, sweep and import. Its directory must exist: a
// mistyped --db directory is an error, not a new directory tree.
func openDB(ctx context.Context, path string) (*results.Store, error) {
	if path == "" {
		path = results.DefaultPath
	}
	dir := filepath.Dir(path)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return nil, invalid("--db %s: directory %s does not exist (create it first)", path, dir)
	}
	s, err := results.OpenContext(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("opening results database: %w", err)
	}
	return s, nil
}

// shown renders a name from a spec or the database for the terminal: as
// is when it is plain text, Go-quoted when it holds control characters
// (an escape sequence in a run name must not drive the terminal).
func shown(s string) string {
	if strings.IndexFunc(s, func(r rune) bool { return unicode.IsControl(r) || r == utf8.RuneError }) < 0 {
		return s
	}
	return strconv.Quote(s)
}
