package results

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
	"time"
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

// liveElsewhere creates running runs ids, owned by a live process on
// another host (a fresh heartbeat): their claims hold.
func liveElsewhere(t testing.TB, s *Store, ids ...string) {
	t.Helper()
	now := time.Now()
	for _, id := range ids {
		if err := s.CreateRun(context.Background(), Run{ID: id, Status: RunRunning, StartedAt: now, OwnerPID: 4242,
			OwnerHost: "elsewhere", HeartbeatAt: now}); err != nil {
			t.Fatal(err)
		}
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

// queryPlan returns the detail column of EXPLAIN QUERY PLAN query on db,
// one entry per step.
func queryPlan(t testing.TB, db *sql.DB, query string) []string {
	t.Helper()
	rows, err := db.Query(`EXPLAIN QUERY PLAN ` + query)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, detail)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return plan
}

func intp(i int) *int       { return &i }
func strp(s string) *string { return &s }
