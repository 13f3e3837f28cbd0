package results

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// Fresh is a database that does not exist yet, filled in one go before
// anyone may open it (`mascot import` into a new database). It is built in
// a temporary file beside its path and appears there only when Publish
// links it into place, whole: a failed or killed load leaves no database
// at the path (the next store created in that directory removes a killed
// process's temporary file).
//
// Because no other process can see the file while it is filled, the
// writer runs without the write-ahead log and without syncing: SQLite
// writes each page once into the file instead of into the log and again
// at the checkpoint, and rolls back from a journal kept in memory (one
// unit's savepoint, or the whole load, which Discard then removes).
// Publish switches the file to the write-ahead log, as every store is,
// and syncs it before linking it into place. A bulk load (TuneForBulk)
// keeps a small page cache here: pages it spills go into the file once,
// where a large cache only took fresh memory for every page of the
// database (docs/benchmarks.md, "Import").
type Fresh struct {
	*Store
	final string
}

// freshPageSize is a Fresh database's page size (SQLite's default is 4
// KiB). A bulk load into it spends less on each row with larger pages:
// fewer pages to split, fetch and write, fewer overflow pages for the
// full-text index's segments. 16 KiB measured best of 4 to 32 KiB for a
// 100k import (docs/benchmarks.md, "branch store100k"). A later write into the
// database writes its 16 KiB pages to the log, which a unit's few changed
// pages afford.
const freshPageSize = 16384

// freshDSN is the connections' string while a Fresh database is filled.
func freshDSN(path string, readOnly bool) string {
	return dsnJournal(path, readOnly, 10000, "MEMORY", "OFF")
}

// CreateFresh starts a new database for path, which must not exist yet
// (os.ErrExist otherwise), migrated to the current schema.
func CreateFresh(ctx context.Context, path string) (*Fresh, error) {
	if path == "" {
		path = DefaultPath
	}
	if _, err := os.Lstat(path); !errors.Is(err, os.ErrNotExist) {
		if err == nil {
			err = os.ErrExist
		}
		return nil, fmt.Errorf("creating %s: %w", path, err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("creating directory for %s: %w", path, err)
	}
	tmp, err := newTempBeside(path)
	if err != nil {
		return nil, fmt.Errorf("creating %s: %w", path, err)
	}
	s, err := openWith(ctx, tmp, freshDSN, freshPageSize)
	if err != nil {
		return nil, errors.Join(fmt.Errorf("creating %s: %w", path, err), RemoveDB(tmp))
	}
	s.fresh = true
	return &Fresh{Store: s, final: path}, nil
}

// Publish closes the store and puts the database at its path: in
// write-ahead-log mode, synced, linked into place. It fails, removing the
// temporary file, when something else created the path meanwhile.
func (f *Fresh) Publish(ctx context.Context) error {
	tmp := f.Store.path
	err := f.publish(ctx, tmp)
	if err != nil {
		return errors.Join(fmt.Errorf("publishing %s: %w", f.final, err), RemoveDB(tmp))
	}
	return RemoveDB(tmp) // the name in place stays
}

func (f *Fresh) publish(ctx context.Context, tmp string) error {
	// Changing the journal mode needs the only connection to the file.
	err := f.r.Close()
	if err == nil {
		var mode string
		err = f.w.QueryRowContext(ctx, `PRAGMA journal_mode = WAL`).Scan(&mode)
		if err == nil && mode != "wal" {
			err = fmt.Errorf("journal mode %q, not wal", mode)
		}
	}
	if err = errors.Join(err, f.w.Close(), f.cache.close()); err != nil {
		return err
	}
	if err := syncFile(tmp); err != nil {
		return err
	}
	if err := os.Link(tmp, f.final); err != nil {
		return err // os.ErrExist: another database appeared at the path
	}
	// The new name's durability: without it a crash may lose the whole
	// database, never leave part of one (not every system syncs a
	// directory).
	_ = syncFile(filepath.Dir(f.final))
	return nil
}

// Discard closes the store and removes the database, which never appears
// at its path.
func (f *Fresh) Discard() error {
	return errors.Join(f.Store.Close(), RemoveDB(f.Store.path))
}

// syncFile flushes a file or directory to the disk.
func syncFile(path string) error {
	h, err := os.Open(path)
	if err != nil {
		return err
	}
	return errors.Join(h.Sync(), h.Close())
}

// RemoveDB removes a database file with the files SQLite keeps beside it
// (its WAL, shared-memory index and rollback journal); files that are not
// there are no error.
func RemoveDB(path string) error {
	var errs []error
	for _, sfx := range []string{"", "-wal", "-shm", "-journal"} {
		if err := os.Remove(path + sfx); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
