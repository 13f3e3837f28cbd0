package results

import (
	"context"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestSharedPromptStoredOnce inserts a unit's candidates (four sharing a
// prompt, one with its own) in one call: the shared prompt is written
// once, and every reader gives each candidate its prompt, as for the same
// rows inserted one by one with their prompts inline (the digests match).
func TestSharedPromptStoredOnce(t *testing.T) {
	ctx := context.Background()
	shared, own := strings.Repeat("You are The Anchor. ", 120), "a prompt of its own"
	var cs []Candidate
	for i := range 5 {
		p := shared
		if i == 3 {
			p = own
		}
		cs = append(cs, Candidate{Kind: "response", ContextID: "x", Persona: "A", SampleIdx: i, Prompt: p,
			Text: "t" + string(rune('0'+i))})
	}
	fill := func(s *Store, together bool) []int64 {
		t.Helper()
		mustRun(t, s, "r")
		var ids []int64
		err := s.CommitUnit(ctx, Unit{Fingerprint: "cand", Kind: "candidates", StageKey: "cand", RunID: "r"}, func(tx *Tx) error {
			var err error
			if together {
				ids, err = tx.InsertCandidates(cs)
				return err
			}
			for _, c := range cs {
				id, err := tx.InsertCandidate(c)
				if err != nil {
					return err
				}
				ids = append(ids, id)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return ids
	}
	s := openTemp(t)
	ids := fill(s, true)
	inline, err := Open(filepath.Join(t.TempDir(), "inline.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer inline.Close()
	fill(inline, false)

	if n := count(t, s, `SELECT COUNT(*) FROM candidate_prompts`); n != 1 {
		t.Fatalf("%d prompts stored apart, want the shared one", n)
	}
	if n := count(t, s, `SELECT COUNT(*) FROM candidates WHERE prompt_id IS NOT NULL AND prompt = ''`); n != 4 {
		t.Fatalf("%d candidates point at the shared prompt, want 4", n)
	}
	if n := count(t, s, `SELECT SUM(length(prompt)) FROM candidates`); n != len(own) {
		t.Fatalf("%d bytes of prompts inline, want only the unshared one's %d", n, len(own))
	}
	got, err := s.Candidates(ctx, "r", "")
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range got {
		if c.ID != ids[i] || c.Prompt != cs[i].Prompt || c.Text != cs[i].Text {
			t.Fatalf("candidate %d reads back as id %d, %q...; want id %d, %q", i, c.ID, c.Text, ids[i], cs[i].Text)
		}
	}
	prompts, err := s.CandidatePrompts(ctx, []string{"cand"})
	if err != nil || !reflect.DeepEqual(prompts, []string{shared, own}) {
		t.Fatalf("CandidatePrompts: %d prompts, %v", len(prompts), err)
	}
	a, err := s.StageDigests(ctx, "r")
	if err != nil {
		t.Fatal(err)
	}
	b, err := inline.StageDigests(ctx, "r")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("digest with the prompt shared %v, inline %v", a, b)
	}

	// A Slurm shard's units are ingested with their shared prompts.
	main, err := Open(filepath.Join(t.TempDir(), "main.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer main.Close()
	mustRun(t, main, "ctl")
	if _, err := Ingest(ctx, main, s.Path(), "ctl"); err != nil {
		t.Fatal(err)
	}
	if prompts, err := main.CandidatePrompts(ctx, []string{"cand"}); err != nil || !reflect.DeepEqual(prompts, []string{shared, own}) {
		t.Fatalf("ingested CandidatePrompts: %d prompts, %v", len(prompts), err)
	}
	// Removing the run removes its prompts.
	rm, err := s.RemoveRuns(ctx, []string{"r"}, false)
	if err != nil {
		t.Fatal(err)
	}
	if rm.Rows["candidate_prompts"] != 1 || count(t, s, `SELECT COUNT(*) FROM candidate_prompts`) != 0 {
		t.Fatalf("removal: %v, %d prompts left", rm.Rows, count(t, s, `SELECT COUNT(*) FROM candidate_prompts`))
	}
}
