package results

import (
	"context"
	"testing"
)

// SQLite keeps no memory statistics (their mutex cost every allocation a
// lock): configured before the first connection, and still off once a
// store has written and read rows.
func TestSQLiteKeepsNoMemoryStatistics(t *testing.T) {
	if memstatusErr != 0 {
		t.Fatalf("sqlite3_config(MEMSTATUS, 0) = %d, want 0 (SQLITE_OK)", memstatusErr)
	}
	s := openTemp(t)
	mustRun(t, s, "r1")
	if n := count(t, s, `SELECT COUNT(*) FROM runs`); n != 1 {
		t.Fatalf("%d runs", n)
	}
	if _, err := s.GetRun(context.Background(), "r1"); err != nil {
		t.Fatal(err)
	}
	if used := sqliteMemoryUsed(); used != 0 {
		t.Fatalf("SQLite counts %d bytes in use: its memory statistics are on", used)
	}
}
