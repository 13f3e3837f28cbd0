package results

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"mascot.dev/mascot/internal/sqlrows"
	"mascot.dev/mascot/results/jsonl"
)

// TestMultiRowSQL: the bulk statements name the id first and have one
// parameter per column and row.
func TestMultiRowSQL(t *testing.T) {
	got := multiRowSQL(insertTurnSQL, 2)
	want := `INSERT INTO turns (id, episode_id, turn_idx, round_id, turn_type, agent_name, response,
	directive_json, directive_output, extra_json) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?), (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}

// bulkFixture is 150 episodes (more than two multi-row statements' worth,
// and a remainder) with 0 to 300 turns each (one episode's turns fill
// several turn statements), every column set on some of them.
func bulkFixture() []Episode {
	var eps []Episode
	for i := range 150 {
		e := Episode{Idx: i, SampleIdx: i % 3, System: []string{"mascot", "base"}[i%2], Dataset: "empathetic_dialogues",
			Valence: []string{"negative", "positive", ""}[i%3], Mode: "eval",
			Record: jsonl.Record{ConvID: fmt.Sprintf("conv-%03d", i), InitialEmotion: sp("sad"),
				Metadata: jsonl.Metadata{PersonaSet: "default", RubricVersion: "paper_v1"}}}
		if i%5 == 0 {
			e.AgentsSpoken = map[string]int{"The Anchor": i, "user": 1}
			e.Extra = map[string]json.RawMessage{"stage": []byte(`"eval"`), "n": []byte(fmt.Sprint(i))}
		}
		turns := []int{0, 1, 7, 300}[i%4]
		if i%4 == 3 && i > 3 {
			turns = 9
		}
		for k := range turns {
			tu := Turn{TurnIdx: k, RoundID: ip(k / 2), AgentName: "The Anchor",
				Response: fmt.Sprintf("reply %d of %d about driving tests <&>", k, i)}
			if k%2 == 0 {
				tu.Directive = &jsonl.Directive{AgentName: "The Anchor", Action: "validate", Tone: "calm"}
				tu.DirectiveOutput = sp("out")
			} else {
				tu.TurnType, tu.AgentName = "user", "user"
				tu.Extra = map[string]json.RawMessage{"emotion": []byte(`"calm"`)}
			}
			e.Turns = append(e.Turns, tu)
		}
		eps = append(eps, e)
	}
	return eps
}

func sp(s string) *string { return &s }
func ip(i int) *int       { return &i }

// TestBulkEqualsInsertEpisode: episodes inserted through Bulk (multi-row
// statements, given ids, triggers suspended) leave exactly the rows, ids
// included, tallies, unit row and full-text search results that
// InsertEpisode row by row leaves, after earlier rows of another unit.
func TestBulkEqualsInsertEpisode(t *testing.T) {
	ctx := context.Background()
	fill := func(bulk bool) *Store {
		s := openTemp(t)
		mustRun(t, s, "r")
		before := Unit{Fingerprint: "before", Kind: "episodes", StageKey: "eval", RunID: "r"}
		if err := s.CommitUnit(ctx, before, func(tx *Tx) error {
			_, err := tx.InsertEpisode(bulkFixture()[3]) // 300 turns
			return err
		}); err != nil {
			t.Fatal(err)
		}
		u := Unit{Fingerprint: "load", Kind: "import", StageKey: "import", RunID: "r"}
		if err := s.CommitUnit(ctx, u, func(tx *Tx) error {
			if !bulk {
				for _, e := range bulkFixture() {
					if _, err := tx.InsertEpisode(e); err != nil {
						return err
					}
				}
				return nil
			}
			b, err := tx.BulkEpisodes()
			if err != nil {
				return err
			}
			var ids []int64
			for _, e := range bulkFixture() {
				id, err := b.Insert(e)
				if err != nil {
					return err
				}
				ids = append(ids, id)
			}
			if ids[0] != 2 || ids[len(ids)-1] != 151 {
				return fmt.Errorf("ids %d … %d before Close", ids[0], ids[len(ids)-1])
			}
			return b.Close()
		}); err != nil {
			t.Fatal(err)
		}
		return s
	}
	rowByRow, bulk := fill(false), fill(true)
	dump := func(s *Store, q string) string {
		return strings.Join(sqlrows.Lines(t, s.Reader(), q), "\n")
	}
	for _, q := range []string{
		`SELECT * FROM episodes ORDER BY id`,
		`SELECT * FROM turns ORDER BY id`,
		`SELECT fingerprint, kind, state, attempts, error FROM units ORDER BY fingerprint`,
		`SELECT * FROM run_stage_units ORDER BY run_id, stage_key`,
		`SELECT docid FROM turn_text WHERE turn_text MATCH 'driving' ORDER BY docid`,
		`SELECT docid FROM turn_text WHERE turn_text MATCH '"reply 7"' ORDER BY docid`,
	} {
		a, b := dump(rowByRow, q), dump(bulk, q)
		if a != b {
			t.Errorf("%s differs:\nrow by row %.600s\nbulk       %.600s", q, a, b)
		}
		if strings.Count(a, "\n") < 1 {
			t.Errorf("%s: no rows", q)
		}
	}
	if n := count(t, bulk, `SELECT COUNT(*) FROM turns`); n < 1000 {
		t.Errorf("%d turns", n)
	}
	got := searchAll(t, bulk, "driving", 1000)
	want := searchAll(t, rowByRow, "driving", 1000)
	if len(want) < 100 || !slices.Equal(got, want) {
		t.Errorf("search: %d episodes, want %d the same", len(got), len(want))
	}
}

// TestRowEncodingsMetadataExtras: the remembered metadata JSON is reused
// only for the same extras; each answer is what EncodeMetadata writes.
func TestRowEncodingsMetadataExtras(t *testing.T) {
	var enc rowEncodings
	base := jsonl.Metadata{SchemaVersion: "1", System: "s", Dataset: "d"}
	a, b, c, d := base, base, base, base
	a.Extra = map[string]json.RawMessage{"k": json.RawMessage(`1`)}
	b.Extra = map[string]json.RawMessage{"k": json.RawMessage(`2`)}
	d.System = "other"
	seq := []jsonl.Metadata{a, a, b, c, d, c, b}
	for i := range maxMetas + 2 { // more blocks than are remembered
		m := base
		m.Dataset = fmt.Sprint("d", i)
		seq = append(seq, m, d)
	}
	for i, m := range append(seq, a) {
		got, err := enc.metadata(m)
		if err != nil {
			t.Fatal(err)
		}
		want, err := jsonl.EncodeMetadata(m)
		if err != nil {
			t.Fatal(err)
		}
		if got != string(want) {
			t.Errorf("metadata %d: %s, want %s", i, got, want)
		}
	}
	a.Extra["k"] = json.RawMessage(`3`) // the caller's map changes after
	if got, _ := enc.metadata(a); !strings.Contains(got, `"k":3`) {
		t.Errorf("changed extras: %s", got)
	}
}
