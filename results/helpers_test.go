package results

import (
	"context"
	"path/filepath"
	"testing"
)

func openTemp(t testing.TB) *Store {
	t.Helper()
	s, err := Open(filepath.Join(t.TempDir(), "mascot.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func mustRun(t testing.TB, s *Store, id string) {
	t.Helper()
	if err := s.CreateRun(context.Background(), Run{ID: id, Name: "n-" + id, ConfigName: "demo"}); err != nil {
		t.Fatal(err)
	}
}

func count(t testing.TB, s *Store, query string, args ...any) int {
	t.Helper()
	var n int
	if err := s.Reader().QueryRow(query, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

func intp(i int) *int       { return &i }
func strp(s string) *string { return &s }
