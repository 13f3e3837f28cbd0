package transfer

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"mascot.dev/mascot/results"
	"mascot.dev/mascot/results/report"
)

// manyLines writes a file of n records cycling through the sample's
// records in all their forms (the Python original's spacing, nulls and
// missing keys; the exporter's form with and without stage and mode), so
// that an import takes many decoder chunks and both decoding paths.
func manyLines(t testing.TB, n int) string {
	t.Helper()
	var recs [][]byte
	for _, line := range sampleLines(t) {
		if bytes.HasPrefix(bytes.TrimSpace(line), []byte(`{`)) && !bytes.Contains(line, []byte(`"mode":""`)) {
			recs = append(recs, line)
		}
	}
	var file bytes.Buffer
	for i := range n {
		file.Write(recs[i%len(recs)])
		file.WriteByte('\n')
	}
	path := filepath.Join(t.TempDir(), "conversations.jsonl")
	if err := os.WriteFile(path, file.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// stamps are the values that differ between two imports of the same file
// besides the run's id: the clock (milliseconds since 1970, 13 digits)
// and the report stamps' random epoch (16 hexadecimal digits).
var stamps = regexp.MustCompile(`\b1[0-9]{12}\b|"[0-9a-f]{16}"`)

// TestImportNewEqualsImport: an import into a database that does not
// exist yet (filled aside without the write-ahead log, then published)
// leaves the same rows, full-text index and schema as an import into a
// new database opened the ordinary way; the published file is in WAL
// mode, and nothing else is left in its directory.
func TestImportNewEqualsImport(t *testing.T) {
	ctx := context.Background()
	file := manyLines(t, 1500)
	s := openTemp(t)
	want, err := Import(ctx, s, file, "many")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	db := filepath.Join(dir, "new.db")
	got, err := ImportNew(ctx, db, file, "many")
	if err != nil {
		t.Fatal(err)
	}
	if got.Episodes != 1500 || got.Episodes != want.Episodes || got.UnitFP != want.UnitFP || got.Reused {
		t.Fatalf("ImportNew %+v, Import %+v", got, want)
	}
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) != 1 || entries[0].Name() != "new.db" {
		t.Fatalf("directory after the import: %v (%v), want only new.db", entries, err)
	}
	hdr := make([]byte, 20)
	if f, err := os.Open(db); err != nil {
		t.Fatal(err)
	} else if _, err := f.Read(hdr); err != nil || hdr[18] != 2 || hdr[19] != 2 {
		t.Fatalf("file format versions %v (%v), want 2 2 (WAL)", hdr[18:20], err)
	} else {
		f.Close()
	}
	n, err := results.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	var page int
	if err := n.Reader().QueryRow(`PRAGMA page_size`).Scan(&page); err != nil || page != 16384 {
		t.Fatalf("page size %d (%v), want 16384: a new database's larger pages", page, err)
	}
	norm := func(dump, runID string) string {
		return stamps.ReplaceAllString(strings.ReplaceAll(dump, runID, "RUN"), "T")
	}
	a, b := norm(dumpDB(t, s), want.RunID), norm(dumpDB(t, n), got.RunID)
	if a != b {
		if d := os.Getenv("MASCOT_TEST_DUMP"); d != "" {
			os.WriteFile(d+".a", []byte(a), 0o644)
			os.WriteFile(d+".b", []byte(b), 0o644)
		}
		al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
		for i := range min(len(al), len(bl)) {
			if al[i] != bl[i] {
				t.Fatalf("databases differ (%d and %d lines), first at line %d:\nImport:    %.400s\nImportNew: %.400s",
					len(al), len(bl), i, al[i], bl[i])
			}
		}
		t.Fatalf("databases differ: %d and %d lines", len(al), len(bl))
	}
	if strings.Contains(a, "turn_text terms (0 rows)") || !strings.Contains(a, "turn_text terms (") || !strings.Contains(a, "episodes (1500 rows)") {
		t.Fatalf("the dump lacks the tables it compares:\n%.2000s", a)
	}
	// The same report, computed afresh (an import holds no judgments yet:
	// the report says so), and the same search results.
	render := func(st *results.Store, runID string) string {
		rep, err := report.Build(ctx, st, []string{runID}, report.Options{NoCache: true})
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		if err := report.Render(&b, rep, report.FormatText); err != nil {
			t.Fatal(err)
		}
		return strings.ReplaceAll(b.String(), runID, "RUN")
	}
	if ra, rb := render(s, want.RunID), render(n, got.RunID); ra != rb || ra == "" {
		t.Fatalf("reports differ:\nImport:\n%s\nImportNew:\n%s", ra, rb)
	}
	search := func(st *results.Store, runID string) []string {
		p, err := st.EpisodesPage(ctx, results.EpisodeQuery{RunID: runID, Text: "feel", Limit: 1000})
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, e := range p.Episodes {
			ids = append(ids, fmt.Sprint(e.ID, e.ConvID, e.NumTurns))
		}
		return ids
	}
	if sa, sb := search(s, want.RunID), search(n, got.RunID); len(sa) == 0 || strings.Join(sa, ",") != strings.Join(sb, ",") {
		t.Fatalf("search results differ: %d and %d episodes", len(sa), len(sb))
	}
}

// TestImportNewRefusesAnExistingDatabase: ImportNew never writes over a
// database; the CLI imports into an existing one the ordinary way.
func TestImportNewRefusesAnExistingDatabase(t *testing.T) {
	s := openTemp(t)
	_, err := ImportNew(context.Background(), s.Path(), "../testdata/mascot_sample.jsonl", "")
	if !errors.Is(err, os.ErrExist) {
		t.Fatalf("ImportNew over a database: %v, want os.ErrExist", err)
	}
	if n := count(t, s, `SELECT COUNT(*) FROM runs`); n != 0 {
		t.Fatalf("%d runs", n)
	}
}

// TestImportNewBadLineLeavesNoDatabase: an import into a new database
// that stops at a bad line leaves no file at all in the directory.
func TestImportNewBadLineLeavesNoDatabase(t *testing.T) {
	file := manyLines(t, 1000)
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	lines[700] = []byte("{\"conv_id\":\"x\",\"turns\":[\n")
	if err := os.WriteFile(file, bytes.Join(lines, nil), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	_, err = ImportNew(context.Background(), filepath.Join(dir, "new.db"), file, "")
	if !errors.Is(err, ErrBadRecord) || !strings.Contains(err.Error(), "line 701:") {
		t.Fatalf("import error %v, want a bad record at line 701", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("left %v", entries)
	}
}

// killedImportEnv makes the test binary a process importing into a new
// database (TestImportNewKilledLeavesNoDatabase's child).
const killedImportEnv = "MASCOT_TEST_IMPORT_NEW_CHILD"

func TestMain(m *testing.M) {
	if spec := os.Getenv(killedImportEnv); spec != "" {
		db, file, _ := strings.Cut(spec, "\n")
		if _, err := ImportNew(context.Background(), db, file, ""); err != nil {
			os.Stderr.WriteString(err.Error() + "\n")
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestImportNewKilledLeavesNoDatabase SIGKILLs a process importing into a
// new database while it fills its temporary file: no database appears at
// the path, and the next import there removes the dead process's file and
// publishes a whole database.
func TestImportNewKilledLeavesNoDatabase(t *testing.T) {
	file := manyLines(t, 20000)
	dir := t.TempDir()
	db := filepath.Join(dir, "mascot.db")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), killedImportEnv+"="+db+"\n"+file)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	temp := func() []string {
		m, _ := filepath.Glob(filepath.Join(dir, ".mascot.db.new-*"))
		return m
	}
	deadline := time.Now().Add(time.Minute)
	for len(temp()) == 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	time.Sleep(100 * time.Millisecond) // into the load
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err == nil {
		t.Fatalf("the import finished before it was killed; make the file larger (%s)", stderr.String())
	}
	if _, err := os.Lstat(db); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a killed import left %s (%v)", db, err)
	}
	if len(temp()) == 0 {
		t.Fatal("the killed import left no temporary file: it was not killed while loading")
	}
	res, err := ImportNew(context.Background(), db, file, "")
	if err != nil || res.Episodes != 20000 {
		t.Fatalf("import after the kill: %+v %v", res, err)
	}
	if left := temp(); len(left) != 0 {
		t.Fatalf("the dead import's file stays: %v", left)
	}
	s, err := results.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if n := count(t, s, `SELECT COUNT(*) FROM episodes`); n != 20000 {
		t.Fatalf("%d episodes", n)
	}
}
