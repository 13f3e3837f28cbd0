package results

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// textFixture stores, in run r, 30 episodes (one unit each) whose first
// turn says "plain words <i>", and marks some: episodes 3 and 17 talk of
// "Driving tests" (17 in both agent turns), 9 of "naïve haystacks"; run
// "other" has a driving episode of its own that r's search must not list.
func textFixture(t *testing.T, s *Store) map[int]int64 {
	t.Helper()
	ctx := context.Background()
	mustRun(t, s, "r")
	mustRun(t, s, "other")
	ids := map[int]int64{}
	for i := range 31 {
		run := "r"
		if i == 30 {
			run = "other"
		}
		ep := sampleEpisode(fmt.Sprintf("conv-%02d", 40-i)) // storage order is not conv order
		ep.Mode = ModeEval
		ep.Turns[0].Response = fmt.Sprintf("plain words %d", i)
		ep.Turns = append(ep.Turns, Turn{TurnIdx: 2, AgentName: "The Beacon", Response: "more plain words"})
		switch i {
		case 3, 30:
			ep.Turns[0].Response = "Your Driving tests went well."
		case 17:
			ep.Turns[0].Response = "Driving tests are hard"
			ep.Turns[2].Response = "driving  tests, again!"
		case 9:
			ep.Turns[2].Response = "A naïve view of haystacks"
		}
		err := s.CommitUnit(ctx, Unit{Fingerprint: fmt.Sprintf("t%02d", i), Kind: "episodes", StageKey: "g", RunID: run},
			func(tx *Tx) error {
				id, err := tx.InsertEpisode(ep)
				ids[i] = id
				return err
			})
		if err != nil {
			t.Fatal(err)
		}
	}
	return ids
}

// searchAll pages through a text search with pages of size limit.
func searchAll(t *testing.T, s *Store, text string, limit int) []int64 {
	t.Helper()
	var out []int64
	after := ""
	for range 100 {
		p, err := s.EpisodesPage(context.Background(), EpisodeQuery{RunID: "r", Text: text, Limit: limit, After: after})
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range p.Episodes {
			if n := count(t, s, `SELECT COUNT(*) FROM turns WHERE episode_id = ?`, e.ID); e.NumTurns != n {
				t.Errorf("episode %d listed with %d turns, has %d", e.ID, e.NumTurns, n)
			}
			out = append(out, e.ID)
		}
		if after = p.Next; after == "" {
			return out
		}
	}
	t.Fatal("search never ended")
	return nil
}

func TestTextSearchFindsWordsThroughTheIndex(t *testing.T) {
	s := openTemp(t)
	ids := textFixture(t, s)
	for _, c := range []struct {
		text string
		want []int
	}{
		{"driving tests", []int{3, 17}},
		{"DRIV test", []int{3, 17}},  // case folded, words as prefixes
		{"tests driving", nil},       // a phrase: in order
		{"naive view", []int{9}},     // accents folded
		{"  haystacks!  ", []int{9}}, // punctuation is not a word
		{"plain words 2", []int{2, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29}},
		{"zebra", nil},
	} {
		var want []int64
		for _, i := range c.want {
			want = append(want, ids[i])
		}
		for _, limit := range []int{1, 2, 50} {
			if got := searchAll(t, s, c.text, limit); !slices.Equal(got, want) {
				t.Errorf("search %q (pages of %d): %v, want %v", c.text, limit, got, want)
			}
		}
	}
	// Other filters still apply.
	p, err := s.EpisodesPage(context.Background(), EpisodeQuery{RunID: "r", Text: "driving", ConvID: "conv-2"})
	if err != nil || len(p.Episodes) != 1 || p.Episodes[0].ID != ids[17] {
		t.Errorf("driving in conv-2*: %+v %v, want episode 17", p.Episodes, err)
	}
	// The plan reads the index, not every episode of the run.
	plan := queryPlan(t, s.Reader(), `SELECT e.id FROM turn_text f JOIN turns t ON t.id = f.docid
		JOIN episodes e ON e.id = t.episode_id WHERE f.turn_text MATCH '"driv*"' AND f.docid > 0 ORDER BY f.docid`)
	if len(plan) == 0 || !strings.Contains(plan[0], "VIRTUAL TABLE INDEX") || slices.ContainsFunc(plan, func(d string) bool {
		return strings.Contains(d, "TEMP B-TREE")
	}) {
		t.Errorf("query plan %q: want the index first and no sort", plan)
	}
}

// TestTextIndexFollowsWrites: deleted episodes and changed responses leave
// the index, and a database written before migration 0011 is indexed when
// it is migrated.
func TestTextIndexFollowsWrites(t *testing.T) {
	s := openTemp(t)
	ids := textFixture(t, s)
	if _, err := s.w.Exec(`DELETE FROM episodes WHERE id = ?`, ids[3]); err != nil {
		t.Fatal(err)
	}
	if _, err := s.w.Exec(`UPDATE turns SET response = 'cycling' WHERE episode_id = ? AND turn_idx = 0`, ids[17]); err != nil {
		t.Fatal(err)
	}
	if got := searchAll(t, s, "driving", 50); !slices.Equal(got, []int64{ids[17]}) { // its third turn still drives
		t.Errorf("after a delete and an update: %v, want [%d]", got, ids[17])
	}
	if got := searchAll(t, s, "cycling", 50); !slices.Equal(got, []int64{ids[17]}) {
		t.Errorf("the updated response is not found: %v", got)
	}
	if n := count(t, s, `SELECT COUNT(*) FROM turn_text WHERE turn_text MATCH 'driving'`); n != 2 {
		t.Errorf("%d index entries for driving, want 2 (episode 17's third turn, run other's)", n)
	}
	undoMigrations(t, s.w, migrationNumber(t, "_turn_text"))
	// A unit written as a writer of that schema wrote it.
	for _, q := range []string{
		`INSERT INTO units (fingerprint, kind, stage_key, run_id, state, created_at, updated_at)
			VALUES ('late', 'episodes', 'g', 'r', 'done', 0, 0)`,
		`INSERT INTO run_units (run_id, fingerprint, stage_key) VALUES ('r', 'late', 'g')`,
		`INSERT INTO episodes (unit_fp, run_id, conv_id, system, created_at) VALUES ('late', 'r', 'conv-late', 'mascot', 0)`,
		`INSERT INTO turns (episode_id, turn_idx, response) VALUES (last_insert_rowid(), 0,
			'written before the index existed: driving')`,
	} {
		if _, err := s.w.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	if err := migrate(context.Background(), s.w); err != nil {
		t.Fatal(err)
	}
	if got := searchAll(t, s, "driving", 50); len(got) != 2 || got[0] != ids[17] {
		t.Errorf("after migrating: %v, want episode 17 and the late one", got)
	}
}

// TestBulkTurnsAreSearchable: a bulk insertion (an import) indexes its
// turns in one statement at its end, the per-turn trigger suspended
// meanwhile, and leaves the trigger and the writer's settings as they were
// for later writes.
func TestBulkTurnsAreSearchable(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	textFixture(t, s)
	writerPragmas := func() string {
		var out []string
		for _, p := range bulkPragmas {
			var v string
			if err := s.w.QueryRow(`PRAGMA ` + p.name).Scan(&v); err != nil {
				t.Fatal(err)
			}
			out = append(out, p.name+"="+v)
		}
		return strings.Join(out, " ")
	}
	pragmas := writerPragmas()
	bulkCopy := func(src, dst string) {
		var eps []*Episode
		if err := s.ForEachEpisode(ctx, src, func(e *Episode) error { eps = append(eps, e); return nil }); err != nil {
			t.Fatal(err)
		}
		mustRun(t, s, dst)
		restore, err := s.TuneForBulk(ctx)
		if err != nil {
			t.Fatal(err)
		}
		err = s.CommitUnit(ctx, Unit{Fingerprint: "bulk-" + dst, Kind: "import", StageKey: "import", RunID: dst},
			func(tx *Tx) error {
				b, err := tx.BulkEpisodes()
				if err != nil {
					return err
				}
				for i, e := range eps {
					e.UnitFP, e.RunID, e.Idx = "", "", i
					if _, err := b.Insert(*e); err != nil {
						return err
					}
				}
				return b.Close()
			})
		if err := errors.Join(err, restore()); err != nil {
			t.Fatal(err)
		}
	}
	bulkCopy("r", "copy")
	convs := func(run string) []string {
		p, err := s.EpisodesPage(ctx, EpisodeQuery{RunID: run, Text: "driving tests"})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range p.Episodes {
			out = append(out, e.ConvID)
		}
		return out
	}
	if got, want := convs("copy"), convs("r"); len(want) != 2 || !slices.Equal(got, want) {
		t.Errorf("bulk-inserted run's search: %v, want %v", got, want)
	}
	if n := count(t, s, `SELECT COUNT(*) FROM sqlite_master WHERE type = 'trigger' AND name = ?`, turnIndexTrigger); n != 1 {
		t.Fatal("the bulk insertion left the index trigger dropped")
	}
	if got := writerPragmas(); got != pragmas {
		t.Errorf("writer's settings after the bulk insertion: %s, want them set back to %s", got, pragmas)
	}
	bulkCopy("other", "copy-other")
	if got := convs("copy-other"); len(got) != 1 {
		t.Errorf("second bulk insertion's search: %v, want its one driving episode", got)
	}
}

// TestTextIndexKeepsNoSizes: migration 0020 makes the index anew without
// FTS4's per-document sizes, indexing again the turns a database of the
// schema before it holds, searches and the triggers working as before.
func TestTextIndexKeepsNoSizes(t *testing.T) {
	s := openTemp(t)
	ids := textFixture(t, s)
	sizes := `SELECT COUNT(*) FROM sqlite_master WHERE name = 'turn_text_docsize'`
	if n := count(t, s, sizes); n != 0 {
		t.Fatal("a new store's index keeps the sizes of its documents")
	}
	// The schema before 0020: the index of 0011, with its sizes.
	undoMigrations(t, s.w, migrationNumber(t, "_turn_text_without_docsize"))
	for _, q := range []string{
		`CREATE VIRTUAL TABLE turn_text USING fts4(content="turns", response, tokenize=unicode61)`,
		`INSERT INTO turn_text(turn_text) VALUES ('rebuild')`,
		`UPDATE turns SET response = 'cycling' WHERE episode_id = ? AND turn_idx = 0`,
	} {
		if _, err := s.w.Exec(q, ids[17]); err != nil {
			t.Fatal(err)
		}
	}
	if n := count(t, s, sizes); n != 1 {
		t.Fatal("the index of 0011 keeps no sizes: the test does not start where 0020 does")
	}
	if err := migrate(context.Background(), s.w); err != nil {
		t.Fatal(err)
	}
	if n := count(t, s, sizes); n != 0 {
		t.Error("after migrating, the index keeps the sizes of its documents")
	}
	for text, want := range map[string][]int64{
		"driving": {ids[3], ids[17]}, // 17's third turn still drives
		"cycling": {ids[17]},         // written before the migration
		"naive":   {ids[9]},
	} {
		if got := searchAll(t, s, text, 50); !slices.Equal(got, want) {
			t.Errorf("search %q after migrating: %v, want %v", text, got, want)
		}
	}
	// The triggers of 0011 write to the new table.
	if _, err := s.w.Exec(`UPDATE turns SET response = 'sailing' WHERE episode_id = ? AND turn_idx = 0`, ids[3]); err != nil {
		t.Fatal(err)
	}
	if got := searchAll(t, s, "sailing", 50); !slices.Equal(got, []int64{ids[3]}) {
		t.Errorf("a response changed after migrating: %v, want [%d]", got, ids[3])
	}
	if got := searchAll(t, s, "driving", 50); !slices.Equal(got, []int64{ids[17]}) {
		t.Errorf("after the change, driving finds %v, want [%d]", got, ids[17])
	}
}
