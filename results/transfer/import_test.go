package transfer

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"mascot.dev/mascot/internal/sqlrows"
	"mascot.dev/mascot/results"
)

// dumpDB returns every row of every table, as text, to compare databases.
// The full-text index's segments are listed by what they index (each
// term's documents and occurrences, from fts4aux) instead of their bytes,
// whose node size follows the database's page size (a new database's is
// larger, results.CreateFresh).
func dumpDB(t *testing.T, s *results.Store) string {
	t.Helper()
	tables, err := s.Reader().Query(`SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for tables.Next() {
		var n string
		if err := tables.Scan(&n); err != nil {
			t.Fatal(err)
		}
		names = append(names, n)
	}
	tables.Close()
	names = append(names, "sqlite_master") // the schema, triggers included
	var out strings.Builder
	for _, n := range names {
		if n == "turn_text_segments" || n == "turn_text_segdir" {
			continue // the index's terms below
		}
		q := `SELECT * FROM "` + n + `"`
		if n == "sqlite_master" {
			q = `SELECT type, name, tbl_name, sql FROM sqlite_master` // not rootpage: the file's layout
		}
		lines := sqlrows.Lines(t, s.Reader(), q)
		slices.Sort(lines)
		fmt.Fprintf(&out, "%s (%d rows)\n%s\n", n, len(lines), strings.Join(lines, "\n"))
	}
	if slices.Contains(names, "turn_text_segments") {
		db, err := sql.Open("sqlite3", "file:"+s.Path())
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		db.SetMaxOpenConns(1) // the temporary table is the connection's
		if _, err := db.Exec(`CREATE VIRTUAL TABLE temp.turn_terms USING fts4aux(main, turn_text)`); err != nil {
			t.Fatal(err)
		}
		lines := sqlrows.Lines(t, db, `SELECT term, col, documents, occurrences FROM temp.turn_terms`)
		slices.Sort(lines)
		fmt.Fprintf(&out, "turn_text terms (%d rows)\n%s\n", len(lines), strings.Join(lines, "\n"))
	}
	return out.String()
}

// TestImportBadLineLeavesDatabaseUnchanged imports a file whose line 701
// (past the first chunks the decoders take) is not JSON into a database
// holding an earlier import: the error names the line and the database is
// left exactly as it was, with no run, unit or episode of the failed
// import.
func TestImportBadLineLeavesDatabaseUnchanged(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	if _, err := Import(ctx, s, "../testdata/mascot_sample.jsonl", "earlier"); err != nil {
		t.Fatal(err)
	}
	before := dumpDB(t, s)

	var good [][]byte
	for _, line := range sampleLines(t) {
		if bytes.HasPrefix(line, []byte(`{"conv_id":`)) && !bytes.Contains(line, []byte(`"mode":""`)) {
			good = append(good, line)
		}
	}
	var file bytes.Buffer
	for i := 1; i <= 1000; i++ {
		line := good[i%len(good)]
		if i == 701 {
			line = []byte(`{"conv_id":"x","turns":[`)
		}
		file.Write(line)
		file.WriteByte('\n')
	}
	path := filepath.Join(t.TempDir(), "conversations.jsonl")
	if err := os.WriteFile(path, file.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Import(ctx, s, path, "broken")
	if err == nil || !strings.Contains(err.Error(), "line 701:") {
		t.Fatalf("import error %v, want one naming line 701", err)
	}
	if after := dumpDB(t, s); after != before {
		t.Fatalf("the failed import changed the database:\nbefore:\n%s\nafter:\n%s", before, after)
	}
}

// TestExportImportExportByteIdentical: exporting a run, importing the
// file and exporting the imported run writes the same bytes (the records
// take the import's fast path; run_config.json too).
func TestExportImportExportByteIdentical(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	src, err := Import(ctx, s, "../testdata/mascot_sample.jsonl", "python")
	if err != nil {
		t.Fatal(err)
	}
	first, err := Export(ctx, s, src.RunID, filepath.Join(t.TempDir(), "a"), ExportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s2 := openTemp(t)
	again, err := Import(ctx, s2, first.Path, "again")
	if err != nil {
		t.Fatal(err)
	}
	second, err := Export(ctx, s2, again.RunID, filepath.Join(t.TempDir(), "b"), ExportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{ConversationsFile, RunConfigFile} {
		a, errA := os.ReadFile(filepath.Join(first.Dir, name))
		b, errB := os.ReadFile(filepath.Join(second.Dir, name))
		if errA != nil || errB != nil || !bytes.Equal(a, b) || len(a) == 0 {
			t.Errorf("%s differs (%v, %v):\n%s\n%s", name, errA, errB, a, b)
		}
	}
}

// TestImportKeepsTalliesAndSchema: with the per-episode tally trigger
// suspended during an import, run_stage_units still equals the raw counts
// after a first import and a reused one, and the schema (the trigger
// included) is as before.
func TestImportKeepsTalliesAndSchema(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	schema := func() string {
		var out strings.Builder
		rows, err := s.Reader().Query(`SELECT type, name, COALESCE(sql, '') FROM sqlite_master ORDER BY type, name`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		for rows.Next() {
			var typ, name, sql string
			if err := rows.Scan(&typ, &name, &sql); err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&out, "%s %s %s\n", typ, name, sql)
		}
		return out.String()
	}
	before := schema()
	if !strings.Contains(before, "run_stage_units_episode_add") {
		t.Fatal("no episode tally trigger in the schema")
	}
	// An earlier run already links the file's unit (a failed attempt), so
	// the imported episodes count in its tallies as they are inserted.
	data, err := os.ReadFile("../testdata/mascot_sample.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	mustRun(t, s, "r0")
	u := results.Unit{Fingerprint: "import-" + hex.EncodeToString(sum[:]), Kind: "import", StageKey: "import", RunID: "r0"}
	if err := s.FailUnit(ctx, u, "earlier attempt"); err != nil {
		t.Fatal(err)
	}
	first, err := Import(ctx, s, "../testdata/mascot_sample.jsonl", "")
	if err != nil {
		t.Fatal(err)
	}
	again, err := Import(ctx, s, "../testdata/mascot_sample.jsonl", "")
	if err != nil || !again.Reused {
		t.Fatalf("re-import %+v %v", again, err)
	}
	checkTallies(t, s, "import", first.RunID, again.RunID)
	// r0's failed attempt stays its fact; the episodes of the unit it
	// links count in its tallies.
	if got, err := s.RunUnitCounts(ctx, "r0"); err != nil || got["import"] != (results.UnitCounts{Failed: 1}) {
		t.Fatalf("r0's tallies after the import: %+v (%v), want its failure", got, err)
	}
	if d, err := s.GetRunDetail(ctx, "r0"); err != nil || d.Episodes != 4 {
		t.Fatalf("r0's episodes after the import: %d (%v), want 4", d.Episodes, err)
	}
	if d, err := s.GetRunDetail(ctx, first.RunID); err != nil || d.Episodes != 4 {
		t.Fatalf("run detail of the import: %v", err)
	}
	if after := schema(); after != before {
		t.Fatalf("schema changed:\nbefore:\n%s\nafter:\n%s", before, after)
	}
}
