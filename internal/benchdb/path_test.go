package benchdb

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	_ "github.com/mattn/go-sqlite3"

	"mascot.dev/mascot/results"
)

// TestPathSkipsADatabaseOfANewerMascot: a cached database another checkout
// migrated past this mascot's schema (it shares the temp dir) is left
// alone; Path builds and returns a copy of its own, which opens.
func TestPathSkipsADatabaseOfANewerMascot(t *testing.T) {
	skipsShared(t, fmt.Sprintf("PRAGMA user_version = %d", results.SchemaVersion()+1))
}

// TestPathSkipsADatabaseOfADivergedMascot: a cached database a branch's
// checkout migrated along migrations of its own (here: one version behind
// this schema, with a table of this schema's last migration already made,
// so that migration cannot apply) is left alone the same way.
func TestPathSkipsADatabaseOfADivergedMascot(t *testing.T) {
	skipsShared(t, fmt.Sprintf("PRAGMA user_version = %d; CREATE TABLE report_blocks(x)", results.SchemaVersion()-1))
}

// skipsShared writes the shared cached database with setup and checks
// that Path builds, returns and reuses a copy of its own beside it.
func skipsShared(t *testing.T, setup string) {
	dir := t.TempDir()
	t.Setenv("TMPDIR", dir)
	const n = 8
	shared := filepath.Join(dir, fmt.Sprintf("mascot-benchdb-v%d-%d.db", version, n))
	db, err := sql.Open("sqlite3", shared)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(setup); err != nil {
		t.Fatal(err)
	}
	db.Close()
	got, err := Path(n)
	if err != nil {
		t.Fatalf("Path beside the other mascot's database: %v", err)
	}
	if got == shared {
		t.Fatalf("Path returned the other mascot's database %s", got)
	}
	s, err := results.Open(got)
	if err != nil {
		t.Fatalf("opening the copy Path built: %v", err)
	}
	s.Close()
	if again, err := Path(n); err != nil || again != got {
		t.Fatalf("second Path: %s, %v; want the same copy %s", again, err, got)
	}
	if _, err := os.Stat(shared); err != nil {
		t.Fatalf("the other mascot's database was removed: %v", err)
	}
}
