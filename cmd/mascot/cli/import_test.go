package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mascot.dev/mascot/results"
)

// TestImportBadLineIsInvalidInput: `mascot import` of a file with a line
// that is not a record exits 2, names the line, and adds no run.
func TestImportBadLineIsInvalidInput(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "conversations.jsonl")
	good := `{"conv_id":"c1","turns":[],"metadata":{"schema_version":"1.0","system":"s","dataset":"d"}}`
	if err := os.WriteFile(file, []byte(good+"\n"+good+"\n{\"conv_id\": 3,\n"+good+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "r.db")
	var stderr bytes.Buffer
	code := Run(context.Background(), []string{"import", file, "--db", db}, &bytes.Buffer{}, &stderr)
	if code != ExitInvalid || !strings.Contains(stderr.String(), "line 3:") {
		t.Fatalf("exit %d, want %d with the line named:\n%s", code, ExitInvalid, stderr.String())
	}
	s, err := results.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var runs int
	if err := s.Reader().QueryRow(`SELECT COUNT(*) FROM runs`).Scan(&runs); err != nil || runs != 0 {
		t.Fatalf("%d runs after the failed import (%v)", runs, err)
	}
}
