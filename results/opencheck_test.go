package results

import (
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOpenRefusesDamagedFiles: a zero-byte file, random bytes, a database
// cut mid-page, a damaged header and another program's SQLite database are
// refused with
// ErrNotADatabase, and left byte for byte as they were; a missing file is
// created and a good store reopens.
func TestOpenRefusesDamagedFiles(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.db")
	s, err := Open(good)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.CreateRun(t.Context(), Run{ID: "r1", Name: "n", Status: RunDone}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.w.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		t.Fatal(err)
	}
	s.Close()
	whole, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string][]byte{
		"empty.db":     {},
		"random.db":    []byte(strings.Repeat("\x8f\x01garbage", 1000)),
		"midpage.db":   whole[:len(whole)-100],
		"badmagic.db":  append([]byte("SQLite format 2\x00"), whole[16:]...),
		"badpage.db":   append(append(append([]byte{}, whole[:16]...), 0x03, 0x00), whole[18:]...),
		"tiny.db":      whole[:50],
		"otherprog.db": nil, // written below
	}
	for name, b := range cases {
		p := filepath.Join(dir, name)
		if name == "otherprog.db" {
			if err := makeForeignDB(p); err != nil {
				t.Fatal(err)
			}
			b, _ = os.ReadFile(p)
		} else if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		st, err := Open(p)
		if err == nil {
			st.Close()
			t.Errorf("%s: opened", name)
			continue
		}
		if !errors.Is(err, ErrNotADatabase) {
			t.Errorf("%s: %v, want ErrNotADatabase", name, err)
		}
		after, _ := os.ReadFile(p)
		if string(after) != string(b) {
			t.Errorf("%s: changed by the refused open", name)
		}
		for _, sfx := range []string{"-wal", "-shm"} {
			if _, err := os.Stat(p + sfx); err == nil && name != "otherprog.db" {
				t.Errorf("%s: the refused open left %s", name, p+sfx)
			}
		}
	}
	if s, err := Open(good); err != nil {
		t.Fatalf("reopening the good store: %v", err)
	} else {
		s.Close()
	}
	if s, err := Open(filepath.Join(dir, "new.db")); err != nil {
		t.Fatalf("creating a new store: %v", err)
	} else {
		s.Close()
	}
}

// makeForeignDB writes an SQLite database of some other program.
func makeForeignDB(p string) error {
	db, err := sql.Open("sqlite3", "file:"+p)
	if err != nil {
		return err
	}
	defer db.Close()
	_, err = db.Exec(`CREATE TABLE notes(id INTEGER PRIMARY KEY, text TEXT); INSERT INTO notes(text) VALUES ('mine')`)
	return err
}
