package results

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// commitEpisode commits unit fp of run with one episode (and, with
// judgeOf, a judgment of that episode's first turn by unit fp).
func commitEpisode(t *testing.T, s *Store, run, stage, fp string) int64 {
	t.Helper()
	var id int64
	err := s.CommitUnit(context.Background(), Unit{Fingerprint: fp, Kind: "episodes", StageKey: stage, RunID: run}, func(tx *Tx) error {
		var err error
		id, err = tx.InsertEpisode(sampleEpisode("conv-" + fp))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// TestRemoveRunsKeepsWhatOthersUse: removing a run deletes its rows and
// the units only it links, with their files; a unit another run reuses,
// and a unit whose rows a kept unit's judgment references, stay with
// their files; a sweep parent brings its children.
func TestRemoveRunsKeepsWhatOthersUse(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	runs := t.TempDir()
	dirOf := func(id string) string { return filepath.Join(runs, id) }
	for _, id := range []string{"parent", "a", "b"} {
		if err := os.MkdirAll(dirOf(id), 0o755); err != nil {
			t.Fatal(err)
		}
		r := Run{ID: id, Name: id}
		if id == "a" {
			r.ParentID = "parent"
		}
		if err := s.CreateRun(ctx, r); err != nil {
			t.Fatal(err)
		}
		sum, _ := json.Marshal(map[string]string{"run_dir": dirOf(id)})
		if err := s.FinishRun(ctx, id, RunDone, string(sum)); err != nil {
			t.Fatal(err)
		}
	}
	own := commitEpisode(t, s, "a", "eval", "fp-own")
	commitEpisode(t, s, "a", "eval", "fp-shared")
	refd := commitEpisode(t, s, "a", "eval", "fp-referenced")
	_ = own
	// b reuses fp-shared and judges fp-referenced's episode in a unit of its own.
	if _, err := s.LinkUnits(ctx, "b", "eval", []string{"fp-shared"}); err != nil {
		t.Fatal(err)
	}
	err := s.CommitUnit(ctx, Unit{Fingerprint: "fp-judge-b", Kind: "judge", StageKey: "judge", RunID: "b"}, func(tx *Tx) error {
		_, err := tx.InsertJudgment(Judgment{Judge: "rubric", Criterion: "c", Score: 3, EpisodeID: refd})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	// a's adapter lives in a's run directory; the kept unit's in b's.
	adapter := filepath.Join(dirOf("a"), "train", "adapter")
	if err := os.MkdirAll(adapter, 0o755); err != nil {
		t.Fatal(err)
	}
	err = s.CommitUnit(ctx, Unit{Fingerprint: "fp-train", Kind: "train-grpo", StageKey: "train", RunID: "a"}, func(tx *Tx) error {
		_, err := tx.InsertArtifact(Artifact{Kind: "adapter", Path: adapter, SHA256: "x"})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.TagRun(ctx, "a", "baseline"); err != nil {
		t.Fatal(err)
	}

	dry, err := s.RemoveRuns(ctx, []string{"parent"}, true)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(dry.Runs, ",") != "a,parent" || dry.Units != 2 || dry.Kept != 2 || dry.Rows["episodes"] != 1 {
		t.Fatalf("dry run: %+v; want runs a and parent, units fp-own and fp-train, 2 kept, 1 episode", dry)
	}
	if n := count(t, s, `SELECT COUNT(*) FROM runs`); n != 3 {
		t.Fatalf("the dry run removed runs: %d left", n)
	}
	rm, err := s.RemoveRuns(ctx, []string{"parent"}, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := RemoveFiles(rm); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(rm.Files, ","); got != dirOf("a")+","+dirOf("parent") {
		t.Errorf("files %s, want a's and parent's run directories", got)
	}
	for q, want := range map[string]int{
		`SELECT COUNT(*) FROM runs`: 1, `SELECT COUNT(*) FROM units`: 3, `SELECT COUNT(*) FROM episodes`: 2,
		`SELECT COUNT(*) FROM units WHERE fingerprint IN ('fp-own', 'fp-train')`: 0,
		`SELECT COUNT(*) FROM judgments`:                                         1, `SELECT COUNT(*) FROM run_tags`: 0, `SELECT COUNT(*) FROM artifacts`: 0,
	} {
		if n := count(t, s, q); n != want {
			t.Errorf("%s = %d, want %d", q, n, want)
		}
	}
	for _, p := range []string{dirOf("a"), dirOf("parent")} {
		if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s still exists (%v)", p, err)
		}
	}
	if _, err := os.Stat(dirOf("b")); err != nil {
		t.Errorf("the kept run's directory: %v", err)
	}
	// The kept run reads as before.
	if d, err := s.GetRunDetail(ctx, "b"); err != nil || d.Episodes != 1 {
		t.Errorf("run b after the removal: %d episodes, %v", d.Episodes, err)
	}
}

func TestTagsAndDiff(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	for id, cfg := range map[string]string{
		"a": `{"seed": 1, "stages": {"gen": {"k": 2}, "judge": {"j": 1}, "old": {}}, "urls": ["x"]}`,
		"b": `{"seed": 1, "stages": {"gen": {"k": 3}, "judge": {"j": 1}}, "urls": ["y"], "extra": true}`} {
		if err := s.CreateRun(ctx, Run{ID: id, ConfigJSON: json.RawMessage(cfg)}); err != nil {
			t.Fatal(err)
		}
	}
	for _, st := range []Stage{{RunID: "a", Key: "gen", Fingerprint: "g1"}, {RunID: "a", Key: "judge", Fingerprint: "j1"},
		{RunID: "a", Key: "old", Fingerprint: "o"}, {RunID: "b", Key: "gen", Fingerprint: "g2"},
		{RunID: "b", Key: "judge", Fingerprint: "j2"}, {RunID: "b", Key: "report", Fingerprint: "r"}} {
		if err := s.UpsertStage(ctx, st); err != nil {
			t.Fatal(err)
		}
	}
	d, err := s.DiffRuns(ctx, "a", "b")
	if err != nil {
		t.Fatal(err)
	}
	var fields []string
	for _, f := range d.Fields {
		fields = append(fields, f.Path+":"+string(f.A)+">"+string(f.B))
	}
	if got := strings.Join(fields, " "); got != `extra:>true stages.gen.k:2>3 stages.old:{}> urls.0:"x">"y"` {
		t.Errorf("fields %s", got)
	}
	var stages []string
	for _, st := range d.Stages {
		stages = append(stages, st.Key+"="+st.Status)
	}
	if got := strings.Join(stages, " "); got != "gen=invalidated judge=invalidated report=only in b old=only in a" {
		t.Errorf("stages %s", got)
	}
	if d.Stages[0].Reason != "its config changed" || !strings.HasPrefix(d.Stages[1].Reason, "an input changed") {
		t.Errorf("reasons %q, %q", d.Stages[0].Reason, d.Stages[1].Reason)
	}

	if err := s.TagRun(ctx, "a", "baseline", "lr-1e-6"); err != nil {
		t.Fatal(err)
	}
	if err := s.TagRun(ctx, "b", "bad tag"); !errors.Is(err, ErrBadTag) {
		t.Errorf("tag with a space: %v", err)
	}
	runs, err := s.ListRuns(ctx, RunFilter{Tag: "baseline"})
	if err != nil || len(runs) != 1 || runs[0].ID != "a" {
		t.Fatalf("runs tagged baseline: %v, %v", runs, err)
	}
	if err := s.UntagRun(ctx, "a", "baseline"); err != nil {
		t.Fatal(err)
	}
	if tags, _ := s.RunTags(ctx, "a"); strings.Join(tags, ",") != "lr-1e-6" {
		t.Errorf("tags after untag: %v", tags)
	}
}

// TestRemoveRunsDeletesSharedPrompts: removing a run deletes the shared
// prompts of its candidates units, found through the candidates (no index
// on candidate_prompts.unit_fp since migration 0018), without scanning
// the prompts table, and leaves another run's prompts readable.
func TestRemoveRunsDeletesSharedPrompts(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	for _, run := range []string{"a", "b"} {
		mustRun(t, s, run)
		for _, fp := range []string{run + "-1", run + "-2"} {
			err := s.CommitUnit(ctx, Unit{Fingerprint: fp, Kind: "candidates", StageKey: "cand", RunID: run}, func(tx *Tx) error {
				_, err := tx.InsertCandidates([]Candidate{{ContextID: fp, SampleIdx: 0, Prompt: "prompt of " + fp, Text: "x"},
					{ContextID: fp, SampleIdx: 1, Prompt: "prompt of " + fp, Text: "y"}})
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	if n := count(t, s, `SELECT COUNT(*) FROM candidate_prompts`); n != 4 {
		t.Fatalf("%d shared prompts, want 4 (one per unit)", n)
	}
	dry, err := s.RemoveRuns(ctx, []string{"a"}, true)
	if err != nil || dry.Rows["candidate_prompts"] != 2 || dry.Rows["candidates"] != 4 {
		t.Fatalf("dry run: %+v, %v; want 2 prompts and 4 candidates", dry, err)
	}
	if _, err := s.RemoveRuns(ctx, []string{"a"}, false); err != nil {
		t.Fatal(err)
	}
	for q, want := range map[string]int{
		`SELECT COUNT(*) FROM candidate_prompts`:                          2,
		`SELECT COUNT(*) FROM candidate_prompts WHERE unit_fp LIKE 'a-%'`: 0,
		`SELECT COUNT(*) FROM candidates c JOIN candidate_prompts p ON p.id = c.prompt_id
			WHERE p.prompt = 'prompt of ' || c.unit_fp`: 4,
	} {
		if n := count(t, s, q); n != want {
			t.Errorf("%s = %d, want %d", q, n, want)
		}
	}
	plan := queryPlan(t, s.w, `DELETE FROM candidate_prompts WHERE id IN (SELECT id FROM rm_prompts)
		AND unit_fp IN (SELECT fp FROM rm_units)`)
	if len(plan) == 0 || slices.ContainsFunc(plan, func(d string) bool { return strings.Contains(d, "SCAN candidate_prompts") }) {
		t.Errorf("removing prompts scans the table: %q", plan)
	}
}
