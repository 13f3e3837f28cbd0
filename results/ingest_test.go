package results

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"mascot.dev/mascot/results/jsonl"
)

// fillShard writes n units into a fresh shard database the way a
// stage-exec job does: each unit has an episode with two turns, two
// candidates, a pair, judgments on a candidate, a turn and the episode, a
// metric on the episode and an LLM call.
func fillShard(t *testing.T, path, tag string, n int) []string {
	t.Helper()
	ctx := context.Background()
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	mustRun(t, s, "job-"+tag)
	var fps []string
	for i := range n {
		fp := fmt.Sprintf("%s-unit-%d", tag, i)
		fps = append(fps, fp)
		err := s.CommitUnit(ctx, Unit{Fingerprint: fp, Kind: "k", StageKey: "gen", RunID: "job-" + tag}, func(tx *Tx) error {
			ep, err := tx.InsertEpisode(Episode{System: "mascot", Dataset: "esconv",
				Record: jsonl.Record{ConvID: fp, Turns: []Turn{{TurnIdx: 0, AgentName: "a", Response: "hi " + fp},
					{TurnIdx: 1, AgentName: "b", Response: "yo"}}}})
			if err != nil {
				return err
			}
			var turn int64
			if err := tx.SQL().QueryRow(`SELECT id FROM turns WHERE episode_id = ? AND turn_idx = 1`, ep).Scan(&turn); err != nil {
				return err
			}
			cids, err := tx.InsertCandidates([]Candidate{{ContextID: fp, Text: "good " + fp, SampleIdx: 0},
				{ContextID: fp, Text: "bad " + fp, SampleIdx: 1}})
			if err != nil {
				return err
			}
			if _, err := tx.InsertPair(Pair{ContextID: fp, ChosenID: cids[0], RejectedID: cids[1], Margin: 1}); err != nil {
				return err
			}
			if _, err := tx.InsertJudgments([]Judgment{{Criterion: "c", Score: 5, CandidateID: cids[0]},
				{Criterion: "t", Score: 4, TurnID: turn}, {Criterion: "e", Score: 3, EpisodeID: ep}}); err != nil {
				return err
			}
			if _, err := tx.InsertMetric(Metric{Name: "len", Value: float64(i), EpisodeID: ep}); err != nil {
				return err
			}
			return tx.PutLLMCall(LLMCall{Key: fp + "/0", UnitFP: fp, Role: "speaker", ModelID: "m"})
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return fps
}

func TestIngestTwoShardsTwice(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	main := openTemp(t)
	mustRun(t, main, "run-1")
	a, b := filepath.Join(dir, "a.db"), filepath.Join(dir, "b.db")
	fillShard(t, a, "a", 3)
	fillShard(t, b, "b", 2)

	st, err := Ingest(ctx, main, a, "run-1")
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Units) != 3 || st.Rows["episodes"] != 3 || st.Rows["turns"] != 6 || st.Rows["judgments"] != 9 {
		t.Fatalf("first shard: %+v", st)
	}
	// The second shard's ids start at 1 like the first's: they must be remapped.
	st, err = Ingest(ctx, main, b, "run-1")
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Units) != 2 || st.Rows["candidates"] != 4 || st.Rows["pairs"] != 2 {
		t.Fatalf("second shard: %+v", st)
	}
	for _, p := range []string{a, b} {
		st, err := Ingest(ctx, main, p, "run-1")
		if err != nil {
			t.Fatal(err)
		}
		if len(st.Units) != 0 || len(st.Rows) != 0 {
			t.Fatalf("re-ingesting %s copied %+v", p, st)
		}
	}
	want := map[string]int{"units": 5, "run_units": 5, "episodes": 5, "turns": 10, "candidates": 10,
		"pairs": 5, "judgments": 15, "metrics": 5, "llm_calls": 5}
	for table, n := range want {
		if got := count(t, main, `SELECT COUNT(*) FROM `+table); got != n {
			t.Errorf("%s: %d rows, want %d", table, got, n)
		}
	}
	if got := count(t, main, `SELECT COUNT(*) FROM units WHERE state = 'done' AND run_id = 'run-1'`); got != 5 {
		t.Errorf("done units of run-1: %d", got)
	}
	if got := count(t, main, `SELECT COUNT(*) FROM pragma_foreign_key_check`); got != 0 {
		t.Errorf("%d foreign key violations", got)
	}
	// Every reference stays inside its own unit: remapped, not left
	// pointing at the other shard's rows.
	checks := map[string]string{
		"turns of foreign episodes": `SELECT COUNT(*) FROM turns t JOIN episodes e ON e.id = t.episode_id
			WHERE t.response LIKE 'hi %' AND t.response <> 'hi ' || e.conv_id`,
		"pairs across units": `SELECT COUNT(*) FROM pairs p JOIN candidates c ON c.id = p.chosen_id
			JOIN candidates r ON r.id = p.rejected_id
			WHERE c.unit_fp <> p.unit_fp OR r.unit_fp <> p.unit_fp OR c.text <> 'good ' || p.context_id`,
		"judgments across units": `SELECT COUNT(*) FROM judgments j
			LEFT JOIN candidates c ON c.id = j.candidate_id LEFT JOIN turns t ON t.id = j.turn_id
			LEFT JOIN episodes e ON e.id = COALESCE(j.episode_id, t.episode_id)
			WHERE COALESCE(c.unit_fp, e.unit_fp) IS NOT j.unit_fp`,
		"candidates under another unit's number": `SELECT COUNT(*) FROM candidates c LEFT JOIN units u ON u.no = c.unit_no
			WHERE u.fingerprint IS NOT c.unit_fp`,
		"metrics across units": `SELECT COUNT(*) FROM metrics m JOIN episodes e ON e.id = m.episode_id WHERE e.unit_fp <> m.unit_fp`,
		"rows of the job's run": `SELECT (SELECT COUNT(*) FROM episodes WHERE run_id <> 'run-1')
			+ (SELECT COUNT(*) FROM runs WHERE id LIKE 'job-%')`,
	}
	for name, q := range checks {
		if got := count(t, main, q); got != 0 {
			t.Errorf("%s: %d", name, got)
		}
	}
}

func TestIngestSkipsUnitsAlreadyDone(t *testing.T) {
	ctx := context.Background()
	main := openTemp(t)
	mustRun(t, main, "run-1")
	shard := filepath.Join(t.TempDir(), "s.db")
	fps := fillShard(t, shard, "s", 2)
	// The main store committed the first unit itself (another job, or the
	// local executor) before this shard arrived.
	if err := main.CommitUnit(ctx, Unit{Fingerprint: fps[0], Kind: "k", StageKey: "gen", RunID: "run-1"}, func(tx *Tx) error {
		_, err := tx.InsertCandidate(Candidate{ContextID: "local", Text: "local"})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	// A failed attempt of the second unit is replaced by the shard's result.
	if err := main.FailUnit(ctx, Unit{Fingerprint: fps[1], Kind: "k", StageKey: "gen", RunID: "run-1"}, "boom"); err != nil {
		t.Fatal(err)
	}
	st, err := Ingest(ctx, main, shard, "run-1")
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Units) != 1 || st.Units[0] != fps[1] {
		t.Fatalf("ingested %v, want only %s", st.Units, fps[1])
	}
	if got := count(t, main, `SELECT COUNT(*) FROM candidates WHERE unit_fp = ?`, fps[0]); got != 1 {
		t.Errorf("unit done before has %d candidates, want its own 1", got)
	}
	if got := count(t, main, `SELECT COUNT(*) FROM units WHERE fingerprint = ? AND state = 'done' AND error = ''`, fps[1]); got != 1 {
		t.Errorf("failed unit not marked done by the ingest")
	}
}

func TestIngestMissingShardFails(t *testing.T) {
	main := openTemp(t)
	mustRun(t, main, "run-1")
	if _, err := Ingest(context.Background(), main, filepath.Join(t.TempDir(), "nope.db"), "run-1"); err == nil {
		t.Fatal("ingesting a missing shard succeeded")
	}
}
