package results

import (
	"database/sql"
	"fmt"
	"regexp"
	"slices"
	"testing"
)

var createdObject = regexp.MustCompile(`(?m)^CREATE (?:UNIQUE )?(TABLE|VIRTUAL TABLE|TRIGGER|INDEX|VIEW) (?:IF NOT EXISTS )?(\w+)`)

// addedColumn finds the columns a migration adds to an existing table.
var addedColumn = regexp.MustCompile(`(?m)^ALTER TABLE (\w+) ADD COLUMN (\w+)`)

// undoMigrations takes db back to the version before migration `from`, by
// dropping what that migration and every later one created (their
// triggers, indexes and views first, then the columns they added, then
// their tables), so a test can reapply them to a database written without
// them. It only undoes additive migrations (a trigger a migration drops
// and recreates counts as created), which ours after the first are but
// 0019: that one rebuilds candidates, which stays rebuilt (its unit_no
// column and key), and reapplying it copies the rebuilt table as it is.
func undoMigrations(t *testing.T, db *sql.DB, from int) {
	t.Helper()
	ms, err := loadMigrations()
	if err != nil {
		t.Fatal(err)
	}
	var tables, others, columns []string
	for _, m := range ms[from-1:] {
		for _, c := range addedColumn.FindAllStringSubmatch(m.sql, -1) {
			columns = append(columns, fmt.Sprintf("ALTER TABLE %s DROP COLUMN %s", c[1], c[2]))
		}
		for _, c := range createdObject.FindAllStringSubmatch(m.sql, -1) {
			if c[1] == "TABLE" || c[1] == "VIRTUAL TABLE" {
				tables = append(tables, c[2])
			} else {
				others = append(others, fmt.Sprintf("DROP %s IF EXISTS %s", c[1], c[2]))
			}
		}
	}
	slices.Reverse(tables)
	slices.Reverse(columns)
	others = append(others, columns...)
	for _, tb := range tables {
		others = append(others, "DROP TABLE IF EXISTS "+tb)
	}
	for _, q := range append(others, fmt.Sprintf(`PRAGMA user_version = %d`, from-1)) {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("undoing migrations from %d: %s: %v", from, q, err)
		}
	}
}

// migrationNumber is the version of the migration whose name holds part.
func migrationNumber(t *testing.T, part string) int {
	t.Helper()
	ms, err := loadMigrations()
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		if regexp.MustCompile(regexp.QuoteMeta(part)).MatchString(m.name) {
			return m.version
		}
	}
	t.Fatalf("no migration named *%s*", part)
	return 0
}
