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
// that is not a record exits 2 and names the line; into a database that
// did not exist it leaves none, into an existing one it adds no run. A
// good file then imports into both.
func TestImportBadLineIsInvalidInput(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "conversations.jsonl")
	good := `{"conv_id":"c1","turns":[],"metadata":{"schema_version":"1.0","system":"s","dataset":"d"}}`
	if err := os.WriteFile(file, []byte(good+"\n"+good+"\n{\"conv_id\": 3,\n"+good+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "r.db")
	importInto := func(file string) (int, string) {
		var stderr bytes.Buffer
		return Run(context.Background(), []string{"import", file, "--db", db}, &bytes.Buffer{}, &stderr), stderr.String()
	}
	if code, stderr := importInto(file); code != ExitInvalid || !strings.Contains(stderr, "line 3:") {
		t.Fatalf("exit %d, want %d with the line named:\n%s", code, ExitInvalid, stderr)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Fatalf("the failed import into a new database left %v", entries)
	}
	s, err := results.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	runs := func() int {
		var n int
		if err := s.Reader().QueryRow(`SELECT COUNT(*) FROM runs`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if code, stderr := importInto(file); code != ExitInvalid || !strings.Contains(stderr, "line 3:") || runs() != 0 {
		t.Fatalf("exit %d, want %d with the line named and no run (%d):\n%s", code, ExitInvalid, runs(), stderr)
	}
	goodFile := filepath.Join(dir, "good.jsonl")
	if err := os.WriteFile(goodFile, []byte(good+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, stderr := importInto(goodFile); code != 0 || runs() != 1 {
		t.Fatalf("exit %d, %d runs:\n%s", code, runs(), stderr)
	}
	fresh := filepath.Join(dir, "fresh.db")
	var stderr bytes.Buffer
	if code := Run(context.Background(), []string{"import", goodFile, "--db", fresh}, &bytes.Buffer{}, &stderr); code != 0 {
		t.Fatalf("import into a new database: exit %d:\n%s", code, stderr.String())
	}
	f, err := results.Open(fresh)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var eps int
	if err := f.Reader().QueryRow(`SELECT COUNT(*) FROM episodes`).Scan(&eps); err != nil || eps != 1 {
		t.Fatalf("%d episodes in the new database (%v)", eps, err)
	}
}
