package results

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/mattn/go-sqlite3"
)

// ErrNotADatabase is wrapped by the error Open returns for a file that is
// not a mascot database, or a damaged one.
var ErrNotADatabase = errors.New("not a usable results database")

// sqliteMagic starts every SQLite database file.
var sqliteMagic = []byte("SQLite format 3\x00")

// checkFile refuses, before SQLite touches it, an existing file that is
// not a whole mascot database: empty (SQLite would silently make a new
// database in it), without SQLite's header, with a page size SQLite never
// writes, cut short of a page, or another program's. A file that does not exist is fine (Open creates
// it). These checks read the 100-byte header and stat the file; a full
// integrity check would take seconds on a large store (damage SQLite
// meets while migrating is refused the same way).
func checkFile(path string) error {
	st, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	bad := func(why string, args ...any) error {
		return fmt.Errorf("%s: %w: %s; move it aside (mascot made none of its changes) or name another with --db",
			path, ErrNotADatabase, fmt.Sprintf(why, args...))
	}
	if !st.Mode().IsRegular() {
		return bad("not a regular file")
	}
	if st.Size() == 0 {
		return bad("the file is empty (0 bytes)")
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	hdr := make([]byte, 100)
	if _, err := io.ReadFull(f, hdr); err != nil {
		return bad("the file is %d bytes, shorter than a database header", st.Size())
	}
	if !bytes.Equal(hdr[:16], sqliteMagic) {
		return bad("the file does not start with SQLite's header")
	}
	page := int64(binary.BigEndian.Uint16(hdr[16:18]))
	if page == 1 {
		page = 65536
	}
	if page < 512 || page > 65536 || page&(page-1) != 0 {
		return bad("page size %d in its header is not one SQLite writes", page)
	}
	if st.Size()%page != 0 {
		return bad("the file is %d bytes, not a whole number of %d-byte pages (cut short?)", st.Size(), page)
	}
	// (The header's page count is not checked against the file: a writer
	// killed while checkpointing a WAL leaves it ahead of the file, which
	// SQLite repairs from the WAL.)
	// Another program's database has a schema (its schema cookie counts
	// changes) but not mascot's schema version (user_version): mascot's
	// tables must not be added to it.
	if cookie, version := binary.BigEndian.Uint32(hdr[40:44]), binary.BigEndian.Uint32(hdr[60:64]); cookie != 0 && version == 0 {
		return bad("an SQLite database of another program (a schema, but no mascot schema version)")
	}
	return nil
}

// isCorrupt reports whether SQLite said the file is damaged or not a
// database.
func isCorrupt(err error) bool {
	var se sqlite3.Error
	return errors.As(err, &se) && (se.Code == sqlite3.ErrCorrupt || se.Code == sqlite3.ErrNotADB)
}

// create makes a new database file at path, when there is none, whole or
// not at all: an empty database in WAL mode (SQLite's header, one page) is
// made under a temporary name beside path and then linked into place, so
// a mascot killed while creating its database never leaves an empty file
// at path, and an empty file found there (which checkFile refuses) is not
// one of mascot's. The migrations then run in place, as on any open. A
// concurrent creator that links first wins; this one then opens its
// database. Temporary files of creators that died are removed.
func create(ctx context.Context, path string) error {
	if _, err := os.Lstat(path); err == nil || !errors.Is(err, os.ErrNotExist) {
		return nil
	}
	tmp, err := newTempBeside(path)
	if err != nil {
		return fmt.Errorf("creating %s: %w", path, err)
	}
	defer func() { _ = RemoveDB(tmp) }()
	db, err := sql.Open("sqlite3", dsn(tmp, false)) // journal_mode=WAL writes the header
	if err != nil {
		return fmt.Errorf("creating %s: %w", path, err)
	}
	err = db.PingContext(ctx)
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("creating %s: %w", path, err)
	}
	err = os.Link(tmp, path)
	if err != nil && !errors.Is(err, os.ErrExist) {
		// A file system without hard links: a rename is whole too.
		if err = os.Rename(tmp, path); err != nil {
			return fmt.Errorf("creating %s: %w", path, err)
		}
	}
	return nil
}

// newTempBeside creates an empty file in path's directory whose name
// (".NAME.new-PID-…") says which process fills it, after removing those
// of such files whose process has died (a database being created or
// filled by a process that was killed).
func newTempBeside(path string) (string, error) {
	prefix := "." + filepath.Base(path) + ".new-"
	if stale, _ := filepath.Glob(filepath.Join(filepath.Dir(path), prefix+"*")); len(stale) > 0 {
		for _, f := range stale {
			pid, _, _ := strings.Cut(strings.TrimPrefix(filepath.Base(f), prefix), "-")
			if n, err := strconv.Atoi(pid); err == nil && !processAlive(n) {
				os.Remove(f)
			}
		}
	}
	f, err := os.CreateTemp(filepath.Dir(path), fmt.Sprintf("%s%d-*", prefix, os.Getpid()))
	if err != nil {
		return "", err
	}
	return f.Name(), f.Close()
}

// isFull reports whether SQLite failed for want of space: a full disk, or
// a file over the size the process may write.
func isFull(err error) bool {
	var se sqlite3.Error
	if !errors.As(err, &se) {
		return false
	}
	return se.Code == sqlite3.ErrFull || se.Code == sqlite3.ErrIoErr &&
		(errors.Is(se.SystemErrno, syscall.ENOSPC) || errors.Is(se.SystemErrno, syscall.EFBIG))
}
