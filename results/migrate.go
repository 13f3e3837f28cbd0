package results

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// migration is one embedded schema step; its version is the number that
// prefixes its file name.
type migration struct {
	version int
	name    string
	sql     string
	// fkOff: the migration rebuilds a table that others reference, which
	// it must do with foreign keys off (its first line is fkOffLine).
	fkOff bool
}

// fkOffLine, as a migration's first line, has it run with foreign keys
// off: SQLite's way to rebuild a table (create a new one, copy, drop the
// old, rename), since dropping a referenced table with them on deletes its
// rows first, and cascades. The switch only takes effect outside a
// transaction, so it is made around the migration's.
const fkOffLine = "-- mascot: foreign keys off"

// loadMigrations reads the embedded migrations sorted by version.
func loadMigrations() ([]migration, error) {
	entries, err := fs.ReadDir(migrationFS, "migrations")
	if err != nil {
		return nil, fmt.Errorf("listing migrations: %w", err)
	}
	var out []migration
	for _, e := range entries {
		name := e.Name()
		num, _, ok := strings.Cut(name, "_")
		if !ok || !strings.HasSuffix(name, ".sql") {
			return nil, fmt.Errorf("migration %q: want NNNN_name.sql", name)
		}
		v, err := strconv.Atoi(num)
		if err != nil {
			return nil, fmt.Errorf("parsing migration number of %q: %w", name, err)
		}
		body, err := fs.ReadFile(migrationFS, "migrations/"+name)
		if err != nil {
			return nil, fmt.Errorf("reading migration %q: %w", name, err)
		}
		first, _, _ := strings.Cut(string(body), "\n")
		out = append(out, migration{version: v, name: name, sql: string(body), fkOff: strings.TrimSpace(first) == fkOffLine})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].version < out[j].version })
	for i, m := range out {
		if m.version != i+1 {
			return nil, fmt.Errorf("migration %q: versions must be 1..N without gaps", m.name)
		}
	}
	return out, nil
}

// migrate applies every embedded migration newer than the database's
// user_version, each in its own transaction together with the version bump.
func migrate(ctx context.Context, db *sql.DB) error {
	ms, err := loadMigrations()
	if err != nil {
		return err
	}
	var current int
	if err := db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&current); err != nil {
		return fmt.Errorf("reading user_version: %w", err)
	}
	if current > len(ms) {
		return fmt.Errorf("database schema version %d is newer than this mascot (%d): %w", current, len(ms), ErrSchemaNewer)
	}
	for _, m := range ms[current:] {
		if err := applyMigration(ctx, db, m); err != nil {
			return err
		}
	}
	return nil
}

func applyMigration(ctx context.Context, db *sql.DB, m migration) (err error) {
	conn, err := db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("starting migration %s: %w", m.name, err)
	}
	defer conn.Close()
	if m.fkOff {
		if _, err := conn.ExecContext(ctx, `PRAGMA foreign_keys = OFF`); err != nil {
			return fmt.Errorf("starting migration %s: %w", m.name, err)
		}
		defer func() {
			if _, on := conn.ExecContext(context.WithoutCancel(ctx), `PRAGMA foreign_keys = ON`); on != nil && err == nil {
				err = fmt.Errorf("ending migration %s: turning foreign keys back on: %w", m.name, on)
			}
		}()
	}
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("starting migration %s: %w", m.name, err)
	}
	defer func() { _ = tx.Rollback() }() // sql.ErrTxDone after Commit
	// With foreign keys off nothing checks the rows a rebuild copies: the
	// table's keys are checked before (so a row pointing at nothing is
	// named, not met as whatever constraint of the copy it breaks first)
	// and after (the new table's own references).
	check := func() error { return nil }
	if m.fkOff {
		check = func() error { return checkForeignKeys(ctx, tx, m.sql) }
	}
	if err := check(); err != nil {
		return fmt.Errorf("applying migration %s: %w", m.name, err)
	}
	if _, err := tx.ExecContext(ctx, m.sql); err != nil {
		return fmt.Errorf("applying migration %s: %w", m.name, err)
	}
	if err := check(); err != nil {
		return fmt.Errorf("applying migration %s: %w", m.name, err)
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", m.version)); err != nil {
		return fmt.Errorf("bumping user_version to %d: %w", m.version, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("committing migration %s: %w", m.name, err)
	}
	return nil
}

// rebuiltTable finds the tables a migration rebuilds: created anew under a
// temporary name, the old one dropped, the new one renamed to its name
// (ALTER TABLE x_new RENAME TO x), so x exists before and after.
var rebuiltTable = regexp.MustCompile(`(?m)^ALTER TABLE \w+ RENAME TO (\w+);`)

// checkForeignKeys checks that the tables a migration run with foreign
// keys off rebuilds point only at rows that exist.
func checkForeignKeys(ctx context.Context, tx *sql.Tx, migrationSQL string) error {
	for _, m := range rebuiltTable.FindAllStringSubmatch(migrationSQL, -1) {
		var table, parent string
		var rowid sql.NullInt64
		err := tx.QueryRowContext(ctx, `SELECT "table", rowid, parent FROM pragma_foreign_key_check(?)`, m[1]).
			Scan(&table, &rowid, &parent)
		switch {
		case errors.Is(err, sql.ErrNoRows):
		case err != nil:
			return fmt.Errorf("checking the foreign keys of %s: %w", m[1], err)
		default:
			return fmt.Errorf("row %d of %s points at a row of %s that does not exist", rowid.Int64, table, parent)
		}
	}
	return nil
}

// SchemaVersion is the user_version a database this mascot fully migrated
// has (0 if the embedded migrations cannot be read).
func SchemaVersion() int {
	ms, err := loadMigrations()
	if err != nil {
		return 0
	}
	return len(ms)
}

// ErrSchemaNewer is returned (wrapped) when a database was migrated by a
// newer mascot than this one.
var ErrSchemaNewer = errors.New("written by a newer mascot")
