package transfer

import (
	"bytes"
	"context"
	"maps"
	"os"
	"path/filepath"
	"testing"

	"mascot.dev/mascot/results"
	"mascot.dev/mascot/results/jsonl"
)

func openTemp(t testing.TB) *results.Store {
	t.Helper()
	s, err := results.Open(filepath.Join(t.TempDir(), "mascot.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func mustRun(t testing.TB, s *results.Store, id string) {
	t.Helper()
	if err := s.CreateRun(context.Background(), results.Run{ID: id, Name: "n-" + id, ConfigName: "demo"}); err != nil {
		t.Fatal(err)
	}
}

func count(t testing.TB, s *results.Store, query string, args ...any) int {
	t.Helper()
	var n int
	if err := s.Reader().QueryRow(query, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

func intp(i int) *int       { return &i }
func strp(s string) *string { return &s }

// sampleEpisode is an evaluation-shaped episode of two turns.
func sampleEpisode(conv string) results.Episode {
	return results.Episode{System: "mascot", Dataset: "empathetic_dialogues", Valence: "negative",
		Record: jsonl.Record{ConvID: conv, Metadata: jsonl.Metadata{PersonaSet: "default", RubricVersion: "paper_v1"},
			Turns: []jsonl.Turn{
				{TurnIdx: 0, RoundID: intp(0), AgentName: "The Anchor", Response: "I hear you.",
					Directive: &jsonl.Directive{AgentName: "The Anchor", Action: "validate", Tone: "calm"}},
				{TurnIdx: 1, RoundID: intp(0), TurnType: "user", AgentName: "user", Response: "thanks"},
			}}}
}

// sampleLines returns the sample file's records in their own (Python)
// form and in the exporter's form, with and without the stage and mode
// keys an export adds.
func sampleLines(t testing.TB) [][]byte {
	t.Helper()
	data, err := os.ReadFile("../testdata/mascot_sample.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		out = append(out, line)
		r, err := jsonl.Decode(line)
		if err != nil {
			t.Fatal(err)
		}
		e := &results.Episode{Record: *r}
		for range 2 {
			enc, err := jsonl.Encode(&e.Record)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, enc)
			labelRecord(e, "gen")
		}
	}
	return out
}

// checkTallies compares the kept tallies (run_stage_units) of every run
// with counts of the ledger rows.
func checkTallies(t *testing.T, s *results.Store, step string, runs ...string) {
	t.Helper()
	for _, id := range runs {
		rows, err := s.Reader().Query(`SELECT ru.stage_key,
			SUM(u.state = 'done' AND ru.cached = 0), SUM(u.state = 'done' AND ru.cached = 1), SUM(u.state = 'failed')
			FROM run_units ru JOIN units u ON u.fingerprint = ru.fingerprint
			WHERE ru.run_id = ? GROUP BY ru.stage_key`, id)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]results.UnitCounts{}
		for rows.Next() {
			var k string
			var c results.UnitCounts
			if err := rows.Scan(&k, &c.Done, &c.Cached, &c.Failed); err != nil {
				t.Fatal(err)
			}
			want[k] = c
		}
		rows.Close()
		wantEps := count(t, s, `SELECT COUNT(*) FROM run_units ru JOIN episodes e ON e.unit_fp = ru.fingerprint
			WHERE ru.run_id = ?`, id)
		got, err := s.RunUnitCounts(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		d, err := s.GetRunDetail(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		if !maps.Equal(got, want) || d.Episodes != wantEps {
			t.Fatalf("%s: run %s tallies %+v episodes %d, want %+v episodes %d", step, id, got, d.Episodes, want, wantEps)
		}
	}
}
