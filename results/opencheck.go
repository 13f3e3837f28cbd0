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

	"github.com/mattn/go-sqlite3"
)

// ErrNotADatabase is wrapped by the error Open returns for a file that is
// not a mascot database, or a damaged one.
var ErrNotADatabase = errors.New("not a usable results database")

// sqliteMagic starts every SQLite database file.
var sqliteMagic = []byte("SQLite format 3\x00")

// checkFile refuses, before SQLite touches it, an existing file that is
// not a whole SQLite database: empty (SQLite would silently make a new
// database in it), without SQLite's header, with a page size SQLite never
// writes, cut short of a page, or holding fewer pages than its header
// says. A file that does not exist is fine (Open creates it). These checks
// read 100 bytes and stat the file; a full integrity check would take
// seconds on a large store.
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
	// The header's page count holds when its version-valid-for number
	// matches the change counter.
	pages := int64(binary.BigEndian.Uint32(hdr[28:32]))
	if pages > 0 && bytes.Equal(hdr[24:28], hdr[92:96]) && pages*page > st.Size() {
		return bad("its header counts %d pages, but the file holds %d (cut short?)", pages, st.Size()/page)
	}
	return nil
}

// isCorrupt reports whether SQLite said the file is damaged or not a
// database.
func isCorrupt(err error) bool {
	var se sqlite3.Error
	return errors.As(err, &se) && (se.Code == sqlite3.ErrCorrupt || se.Code == sqlite3.ErrNotADB)
}

// checkSchema reads an existing database's schema through a query-only
// connection (which changes nothing, not even the journal mode, yet may
// recover a WAL left by a killed writer): a damaged
// one fails here, and an SQLite file of another program (tables, but no
// mascot schema version) is refused rather than filled with mascot's
// tables.
func checkSchema(ctx context.Context, path string) error {
	if _, err := os.Stat(path); err != nil {
		return nil // Open creates it
	}
	db, err := sql.Open("sqlite3", "file:"+path+"?_query_only=true&_busy_timeout=10000")
	if err != nil {
		return fmt.Errorf("opening %s: %w", path, err)
	}
	defer db.Close()
	var tables, version int
	if err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM sqlite_master`).Scan(&tables); err != nil {
		if isCorrupt(err) {
			return fmt.Errorf("%s: %w: %v; move it aside or name another with --db", path, ErrNotADatabase, err)
		}
		return fmt.Errorf("opening %s: %w", path, err)
	}
	if err := db.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&version); err != nil {
		return fmt.Errorf("opening %s: %w", path, err)
	}
	if version == 0 && tables > 0 {
		return fmt.Errorf("%s: %w: an SQLite database of another program (%d schema objects, no mascot schema version); name another with --db", path, ErrNotADatabase, tables)
	}
	return nil
}

// create makes a new database at path, when there is none, whole or not
// at all: it is built and migrated under a temporary name beside path and
// then linked into place. A mascot killed while creating its database so
// never leaves an empty file at path, and an empty file found there
// (which checkFile refuses) is not one of mascot's. A concurrent creator
// that links first wins; this one then opens its database.
func create(ctx context.Context, path string) error {
	if _, err := os.Lstat(path); err == nil || !errors.Is(err, os.ErrNotExist) {
		return nil
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".new-*")
	if err != nil {
		return fmt.Errorf("creating %s: %w", path, err)
	}
	tmp := f.Name()
	f.Close()
	defer func() {
		for _, sfx := range []string{"", "-wal", "-shm", "-journal"} {
			os.Remove(tmp + sfx)
		}
	}()
	db, err := sql.Open("sqlite3", dsn(tmp, false))
	if err != nil {
		return fmt.Errorf("creating %s: %w", path, err)
	}
	db.SetMaxOpenConns(1)
	err = migrate(ctx, db)
	if err == nil {
		// Everything into the main file, which alone is linked.
		_, err = db.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`)
	}
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
