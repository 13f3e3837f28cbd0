package report

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"testing"

	"mascot.dev/mascot/results"
)

// TestReportFromScoreSumsEqualsRawRows renders a report and a comparison
// from the unit score sums the commits keep, then from the raw judgment
// rows (the sums deleted): the JSON, whose floats are the shortest
// round-tripping texts, must be byte for byte the same.
func TestReportFromScoreSumsEqualsRawRows(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "r.db")
	s, err := results.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	for r, run := range []string{"A", "B"} {
		var eps []judged
		for i := range 40 {
			// fractional raw scores over three turns: sums whose rounding
			// depends on the order of addition
			e := judged{fmt.Sprintf("c%d", i), []string{"mascot", "zero-shot"}[i%2],
				[]string{"positive", "negative", "neutral"}[i%3],
				[]float64{1 + float64((i*7+r)%40)/10.3, 1 + float64((i*11)%40)/9.7, 1 + float64((i*5+r)%40)/11.1},
				1 + float64((i*3)%40)/10.1, []float64{1 + float64(i%40)/10.7, 1 + float64((i*13)%40)/10.9}}
			eps = append(eps, e)
		}
		addRun(t, s, run, eps)
	}
	render := func() string {
		var b bytes.Buffer
		for _, runs := range [][]string{{"A"}, {"A", "B"}} {
			rep, err := Build(ctx, s, runs, Options{Resamples: 200, Seed: 3, All: true, NoCache: true})
			if err != nil {
				t.Fatal(err)
			}
			if err := Render(&b, rep, "json"); err != nil {
				t.Fatal(err)
			}
		}
		return b.String()
	}
	var scored int
	if err := s.Reader().QueryRow(`SELECT COUNT(*) FROM unit_scores`).Scan(&scored); err != nil || scored == 0 {
		t.Fatalf("%d scored units: %v", scored, err)
	}
	fromSums := render()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`DELETE FROM unit_scores`); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if s, err = results.Open(path); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if fromRaw := render(); fromRaw != fromSums {
		t.Fatalf("report from raw rows differs from the score sums':\nraw:  %.400s\nsums: %.400s", fromRaw, fromSums)
	}
}
