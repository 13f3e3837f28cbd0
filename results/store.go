package results

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"time"

	_ "github.com/mattn/go-sqlite3" // registers the "sqlite3" driver

	"mascot.dev/mascot/results/walvfs"
)

// DefaultPath is where the CLI keeps the store unless --db says otherwise.
const DefaultPath = "mascot.db"

// Store is an open results database: one writer connection and a pool of
// read-only connections on the same WAL file. It is safe for concurrent use.
type Store struct {
	path string
	w    *sql.DB // one connection, BEGIN IMMEDIATE
	r    *sql.DB // readers, _query_only

	group grouper // group commit of unit transactions
	cache cacheWriter

	reserve reserve // disk space kept for recording a run's end

	fresh bool // a Fresh database, filled before anyone can open it
	// wc is the writer's connection while writeTx holds it (nil
	// otherwise): a bulk load binds its rows through the driver
	// (bulk_exec.go). Only the holder of the one writer connection sets,
	// reads and clears it.
	wc *sql.Conn
}

// Open opens (creating if needed) the results database at path and migrates
// it to the current schema.
func Open(path string) (*Store, error) {
	return OpenContext(context.Background(), path)
}

// OpenContext is Open with a context for the migration.
func OpenContext(ctx context.Context, path string) (*Store, error) {
	if path == "" {
		path = DefaultPath
	}
	if err := checkFile(path); err != nil {
		return nil, err
	}
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("creating directory for %s: %w", path, err)
		}
	}
	if err := create(ctx, path); err != nil {
		return nil, err
	}
	return openWith(ctx, path, dsn, 0)
}

// openWith opens the database at path through connections made by dsnOf
// (the writer's with readOnly false) and migrates it.
func openWith(ctx context.Context, path string, dsnOf func(path string, readOnly bool) string, pageSize int) (*Store, error) {
	w, err := sql.Open("sqlite3", dsnOf(path, false))
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", path, err)
	}
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	w.SetConnMaxLifetime(0)
	if err := w.PingContext(ctx); err != nil {
		w.Close()
		return nil, fmt.Errorf("opening %s: %w", path, err)
	}
	if pageSize > 0 { // takes effect only in a database that has no table yet
		if _, err := w.ExecContext(ctx, fmt.Sprintf(`PRAGMA page_size = %d`, pageSize)); err != nil {
			w.Close()
			return nil, fmt.Errorf("opening %s: %w", path, err)
		}
	}
	if err := migrate(ctx, w); err != nil {
		w.Close()
		if isCorrupt(err) {
			return nil, fmt.Errorf("%s: %w: %v; move it aside or name another with --db", path, ErrNotADatabase, err)
		}
		return nil, fmt.Errorf("migrating %s: %w", path, err)
	}
	// The group commit (group.go) opens a savepoint per unit. SQLite keeps
	// the original of every page a savepoint changes in a statement
	// journal, which past 64 KiB it spills to a temporary file: two thirds
	// of the writer's write calls in the candidates benchmark (docs/llm.md).
	// In memory, that journal holds at most the pages one unit changes. Set
	// after the migrations, whose index builds may sort more than memory
	// should hold; the pool keeps its one connection, so the setting stays.
	if _, err := w.ExecContext(ctx, `PRAGMA temp_store = MEMORY`); err != nil {
		w.Close()
		return nil, fmt.Errorf("configuring the writer of %s: %w", path, err)
	}
	r, err := sql.Open("sqlite3", dsnOf(path, true))
	if err != nil {
		w.Close()
		return nil, fmt.Errorf("opening readers on %s: %w", path, err)
	}
	r.SetMaxOpenConns(8)
	s := &Store{path: path, w: w, r: r}
	s.group.params, s.group.arrived = defaultHold, make(chan struct{}, 1)
	return s, nil
}

// walVFS says whether connections open through walvfs; benchmarks turn it
// off to measure what it saves.
var walVFS = true

// dsn builds the go-sqlite3 connection string.
func dsn(path string, readOnly bool) string { return dsnWaiting(path, readOnly, 10000) }

// dsnWaiting is dsn with a busy timeout of busyMS milliseconds.
func dsnWaiting(path string, readOnly bool, busyMS int) string {
	return dsnJournal(path, readOnly, busyMS, "WAL", "NORMAL")
}

// dsnJournal is dsnWaiting with the given journal mode and synchronous
// setting.
func dsnJournal(path string, readOnly bool, busyMS int, journal, synchronous string) string {
	q := url.Values{}
	q.Set("_journal_mode", journal)
	q.Set("_busy_timeout", strconv.Itoa(busyMS))
	q.Set("_foreign_keys", "on")
	q.Set("_synchronous", synchronous)
	// Keep each connection's prepared statements: the unit transactions
	// run the same dozen statements over and over, and preparing them
	// anew cost more CPU than running them.
	q.Set("_stmt_cache_size", "64")
	// database/sql hands a connection to one goroutine at a time, so
	// SQLite's own per-connection mutex (taken by every bind, step and
	// column call) only cost CPU.
	q.Set("_mutex", "no")
	// Through walvfs, a commit's log frames reach the file in one write
	// call per 64 KiB instead of two per page (results/walvfs). Were it
	// not registered (no SQLite linked in, which cannot be here), the
	// default VFS opens the same files, only with more write calls.
	if walVFS && walvfs.Register() == nil {
		q.Set("vfs", walvfs.Name)
	}
	if readOnly {
		q.Set("_query_only", "true")
	} else {
		q.Set("_txlock", "immediate")
	}
	return "file:" + path + "?" + q.Encode()
}

// Path returns the database file's path.
func (s *Store) Path() string { return s.path }

// Reader returns the read-only pool, for ad-hoc queries (tests, the web
// viewer). Writes through it fail.
func (s *Store) Reader() *sql.DB { return s.r }

// Close closes both pools.
func (s *Store) Close() error {
	return errors.Join(s.r.Close(), s.w.Close(), s.cache.close())
}

// nowMS is the current time in unix milliseconds.
func nowMS() int64 { return time.Now().UnixMilli() }

// toMS converts a time to unix milliseconds; the zero time becomes now.
func toMS(t time.Time) int64 {
	if t.IsZero() {
		return nowMS()
	}
	return t.UnixMilli()
}

// fromMS converts unix milliseconds to a UTC time; 0 stays the zero time.
func fromMS(ms int64) time.Time {
	if ms == 0 {
		return time.Time{}
	}
	return time.UnixMilli(ms).UTC()
}

// nullMS converts a nullable millisecond column.
func nullMS(v sql.NullInt64) time.Time {
	if !v.Valid {
		return time.Time{}
	}
	return fromMS(v.Int64)
}

// writeTx runs fn in one write transaction on the writer connection.
func (s *Store) writeTx(ctx context.Context, fn func(*sql.Tx) error) (err error) {
	c, err := s.w.Conn(ctx)
	if err != nil {
		return fmt.Errorf("beginning write transaction: %w", err)
	}
	s.wc = c
	defer func() {
		s.wc = nil
		if cerr := c.Close(); cerr != nil { // err itself stays comparable (remove.go's dry run)
			err = errors.Join(err, cerr)
		}
	}()
	tx, err := c.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("beginning write transaction: %w", err)
	}
	if err := fn(tx); err != nil {
		if rerr := tx.Rollback(); rerr != nil {
			return errors.Join(err, fmt.Errorf("rolling back: %w", rerr))
		}
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("committing: %w", err)
	}
	return nil
}
