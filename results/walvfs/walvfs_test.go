package walvfs

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	_ "github.com/mattn/go-sqlite3"
)

// The test binary doubles as a second process: a reader that checks every
// snapshot it sees, or a writer that is killed mid-run.
func TestMain(m *testing.M) {
	switch os.Getenv("WALVFS_HELPER") {
	case "reader":
		until := time.Now().Add(2 * time.Second)
		n, err := readWholeCommits(context.Background(), os.Getenv("WALVFS_DB"), until)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Println(n)
		os.Exit(0)
	case "writer":
		db := open(nil, os.Getenv("WALVFS_DB"), "")
		for k := 1; ; k++ {
			if err := writeAll(db, k); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
			fmt.Println(k) // k is committed
		}
	}
	os.Exit(m.Run())
}

const rows = 40 // rows of 3 kB: a commit rewrites about 40 pages

// open opens path through the VFS in WAL mode, with extra PRAGMAs.
func open(t *testing.T, path, pragmas string) *sql.DB {
	if err := Register(); err != nil {
		fail(t, err)
	}
	db, err := sql.Open("sqlite3", "file:"+path+"?vfs="+Name+"&_journal_mode=WAL&_synchronous=NORMAL&_busy_timeout=10000&_txlock=immediate")
	if err != nil {
		fail(t, err)
	}
	db.SetMaxOpenConns(1)
	for _, q := range []string{pragmas, `CREATE TABLE IF NOT EXISTS t (id INTEGER PRIMARY KEY, v INTEGER NOT NULL, pad BLOB)`} {
		if q == "" {
			continue
		}
		if _, err := db.Exec(q); err != nil {
			fail(t, fmt.Errorf("%s: %w", q, err))
		}
	}
	return db
}

func fail(t *testing.T, err error) {
	if t == nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	t.Helper()
	t.Fatal(err)
}

// writeAll sets every row's v to k in one transaction, rewriting each
// row's padding so that the commit spans many pages.
func writeAll(db *sql.DB, k int) error {
	tx, err := db.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for id := range rows {
		if _, err := tx.Exec(`INSERT INTO t (id, v, pad) VALUES (?, ?, randomblob(3000))
			ON CONFLICT (id) DO UPDATE SET v = excluded.v, pad = excluded.pad`, id, k); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// readWholeCommits reads the table until the deadline and fails on a
// snapshot that is not one whole commit: rows missing or values mixed.
func readWholeCommits(ctx context.Context, path string, until time.Time) (int, error) {
	if err := Register(); err != nil {
		return 0, err
	}
	db, err := sql.Open("sqlite3", "file:"+path+"?vfs="+Name+"&_busy_timeout=10000&_query_only=true")
	if err != nil {
		return 0, err
	}
	defer db.Close()
	reads := 0
	for time.Now().Before(until) {
		var n, lo, hi int
		err := db.QueryRowContext(ctx, `SELECT count(*), COALESCE(min(v), 0), COALESCE(max(v), 0) FROM t WHERE length(pad) = 3000`).Scan(&n, &lo, &hi)
		if err != nil {
			return reads, err
		}
		if n != 0 && (n != rows || lo != hi) {
			return reads, fmt.Errorf("a snapshot holds %d rows with v from %d to %d, want %d rows of one value", n, lo, hi, rows)
		}
		reads++
	}
	return reads, nil
}

// TestCommitFramesGoOutTogether: a commit's frames reach the file in a
// few write calls, not the two per frame SQLite asks for.
func TestCommitFramesGoOutTogether(t *testing.T) {
	db := open(t, filepath.Join(t.TempDir(), "w.db"), "")
	defer db.Close()
	if err := writeAll(db, 1); err != nil {
		t.Fatal(err)
	}
	asked0, made0 := counts()
	if err := writeAll(db, 2); err != nil {
		t.Fatal(err)
	}
	asked1, made1 := counts()
	asked, made := asked1-asked0, made1-made0
	// 40 rows of 3 kB: at least 30 pages, 60 writes asked.
	if asked < 60 || made > asked/8 {
		t.Fatalf("a commit asked %d log writes and made %d write calls, want at least 60 asked and at most an eighth made", asked, made)
	}
}

// TestReadersSeeWholeCommits: while a writer commits through the VFS with
// a page cache small enough to spill mid-transaction (pages then rewritten
// in place, checksums recomputed) and checkpoints every few commits (the
// log restarting from its header), readers in this process and in another
// one only ever see whole commits, and the database checks out.
func TestReadersSeeWholeCommits(t *testing.T) {
	path := filepath.Join(t.TempDir(), "w.db")
	db := open(t, path, `PRAGMA cache_size = 8`)
	defer db.Close()
	if _, err := db.Exec(`PRAGMA wal_autocheckpoint = 64`); err != nil {
		t.Fatal(err)
	}
	if err := writeAll(db, 1); err != nil {
		t.Fatal(err)
	}
	until := time.Now().Add(2 * time.Second)
	cmd := exec.Command(os.Args[0], "-test.run", "^$")
	cmd.Env = append(os.Environ(), "WALVFS_HELPER=reader", "WALVFS_DB="+path)
	var other []byte
	var otherErr error
	var wg sync.WaitGroup
	wg.Go(func() { other, otherErr = cmd.CombinedOutput() })
	var here int
	var hereErr error
	wg.Go(func() { here, hereErr = readWholeCommits(context.Background(), path, until) })
	k := 2
	for ; time.Now().Before(until.Add(200 * time.Millisecond)); k++ {
		if err := writeAll(db, k); err != nil {
			t.Fatal(err)
		}
	}
	wg.Wait()
	if hereErr != nil {
		t.Errorf("reader in this process: %v", hereErr)
	}
	if otherErr != nil {
		t.Errorf("reader process: %v: %s", otherErr, other)
	}
	if k < 20 || here == 0 {
		t.Errorf("%d commits, %d reads here: too few to have tested anything", k, here)
	}
	var check string
	if err := db.QueryRow(`PRAGMA integrity_check`).Scan(&check); err != nil || check != "ok" {
		t.Fatalf("integrity_check: %q, %v", check, err)
	}
	var lo, hi int
	if err := db.QueryRow(`SELECT min(v), max(v) FROM t`).Scan(&lo, &hi); err != nil || lo != k-1 || hi != k-1 {
		t.Fatalf("v from %d to %d (%v), want %d", lo, hi, err, k-1)
	}
}

// TestKilledWriterLosesNoCommit: a writer process killed mid-run leaves a
// database that checks out and holds every commit it reported.
func TestKilledWriterLosesNoCommit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "w.db")
	cmd := exec.Command(os.Args[0], "-test.run", "^$")
	cmd.Env = append(os.Environ(), "WALVFS_HELPER=writer", "WALVFS_DB="+path)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(out)
	last := 0
	for lines.Scan() {
		if last, err = strconv.Atoi(lines.Text()); err != nil {
			t.Fatal(err)
		}
		if last == 150 {
			break
		}
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if last != 150 {
		t.Fatalf("the writer reported %d commits before ending, want 150", last)
	}
	db := open(t, path, "")
	defer db.Close()
	var check string
	if err := db.QueryRow(`PRAGMA integrity_check`).Scan(&check); err != nil || check != "ok" {
		t.Fatalf("integrity_check: %q, %v", check, err)
	}
	var n, lo, hi int
	if err := db.QueryRow(`SELECT count(*), min(v), max(v) FROM t`).Scan(&n, &lo, &hi); err != nil {
		t.Fatal(err)
	}
	if n != rows || lo != hi || lo < last {
		t.Fatalf("%d rows, v from %d to %d; want %d rows of one value, at least %d", n, lo, hi, rows, last)
	}
}
