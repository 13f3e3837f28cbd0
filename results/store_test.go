package results

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"mascot.dev/mascot/results/jsonl"
)

func TestOpenMigratesAndConfigures(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "m.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	var v int
	var mode string
	var fk int
	r := s.Reader()
	if err := r.QueryRow("PRAGMA user_version").Scan(&v); err != nil {
		t.Fatal(err)
	}
	if v != SchemaVersion() || v < 1 {
		t.Fatalf("user_version %d, want %d", v, SchemaVersion())
	}
	r.QueryRow("PRAGMA journal_mode").Scan(&mode)
	r.QueryRow("PRAGMA foreign_keys").Scan(&fk)
	if mode != "wal" || fk != 1 {
		t.Fatalf("journal_mode %q foreign_keys %d", mode, fk)
	}
	if _, err := r.Exec(`INSERT INTO runs (id, started_at) VALUES ('x', 1)`); err == nil {
		t.Fatal("write through the reader pool succeeded")
	}
	s.Close()
	s, err = Open(path) // reopening applies nothing and keeps data
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.r.QueryRow("PRAGMA user_version").Scan(&v); err != nil || v != SchemaVersion() {
		t.Fatalf("after reopen: %d %v", v, err)
	}
}

func TestMigrationFailureLeavesVersion(t *testing.T) {
	s := openTemp(t)
	bad := migration{version: 99, name: "0099_bad.sql", sql: "CREATE TABLE zz (a); SELECT nonsense FROM nowhere;"}
	if err := applyMigration(context.Background(), s.w, bad); err == nil {
		t.Fatal("bad migration applied")
	}
	var v int
	s.r.QueryRow("PRAGMA user_version").Scan(&v)
	if v != SchemaVersion() {
		t.Fatalf("user_version %d after failed migration", v)
	}
	if n := count(t, s, `SELECT COUNT(*) FROM sqlite_master WHERE name = 'zz'`); n != 0 {
		t.Fatal("failed migration left a table")
	}
}

func sampleEpisode(conv string) Episode {
	return Episode{System: "mascot", Dataset: "empathetic_dialogues", Valence: "negative",
		Record: jsonl.Record{ConvID: conv, Metadata: Metadata{PersonaSet: "default", RubricVersion: "paper_v1"}, Turns: []Turn{
			{TurnIdx: 0, RoundID: intp(0), AgentName: "The Anchor", Response: "I hear you.",
				Directive: &Directive{AgentName: "The Anchor", Action: "validate", Tone: "calm"}},
			{TurnIdx: 1, RoundID: intp(0), TurnType: "user", AgentName: "user", Response: "thanks"},
		}}}
}

func TestCommitUnitIsAtomicAndIdempotent(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	mustRun(t, s, "r1")
	mustRun(t, s, "r2")
	u := Unit{Fingerprint: "fp-ep-1", Kind: "episodes", StageKey: "gen", RunID: "r1"}

	// A failing callback writes nothing and leaves the unit not done.
	boom := errors.New("boom")
	err := s.CommitUnit(ctx, u, func(tx *Tx) error {
		if _, err := tx.InsertEpisode(sampleEpisode("c1")); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err %v", err)
	}
	if n := count(t, s, `SELECT COUNT(*) FROM episodes`); n != 0 {
		t.Fatalf("%d episodes after rollback", n)
	}
	if done, _ := s.UnitDone(ctx, u.Fingerprint); done {
		t.Fatal("unit done after rollback")
	}

	calls := 0
	commit := func(u Unit) error {
		return s.CommitUnit(ctx, u, func(tx *Tx) error {
			calls++
			id, err := tx.InsertEpisode(sampleEpisode("c1"))
			if err != nil {
				return err
			}
			_, err = tx.InsertJudgment(Judgment{Judge: "gpt-4o", Criterion: "Empathy", Score: 4, EpisodeID: id})
			return err
		})
	}
	if err := commit(u); err != nil {
		t.Fatal(err)
	}
	if err := commit(u); err != nil { // same run again (resume)
		t.Fatal(err)
	}
	u2 := u
	u2.RunID = "r2"
	if err := commit(u2); err != nil { // another run reuses it
		t.Fatal(err)
	}
	if calls != 1 {
		t.Fatalf("callback ran %d times, want 1", calls)
	}
	if n := count(t, s, `SELECT COUNT(*) FROM episodes`); n != 1 {
		t.Fatalf("%d episodes", n)
	}
	if n := count(t, s, `SELECT COUNT(*) FROM turns`); n != 2 {
		t.Fatalf("%d turns", n)
	}
	if n := count(t, s, `SELECT cached FROM run_units WHERE run_id = 'r2'`); n != 1 {
		t.Fatal("r2 link not cached")
	}
	if n := count(t, s, `SELECT cached FROM run_units WHERE run_id = 'r1'`); n != 0 {
		t.Fatal("r1 link cached")
	}
	st, err := s.GetUnit(ctx, u.Fingerprint)
	if err != nil {
		t.Fatal(err)
	}
	if st.State != UnitDone || st.Attempts != 1 || st.RunID != "r1" {
		t.Fatalf("unit %+v", st)
	}
	done, err := s.DoneUnits(ctx, []string{"fp-ep-1", "nope"})
	if err != nil || len(done) != 1 || !done["fp-ep-1"] {
		t.Fatalf("DoneUnits %v %v", done, err)
	}
	// r2 sees the episode although r1 produced it.
	page, err := s.EpisodesPage(ctx, EpisodeQuery{RunID: "r2"})
	if err != nil || len(page.Episodes) != 1 || page.Episodes[0].NumTurns != 2 {
		t.Fatalf("page %+v %v", page, err)
	}
}

func TestFailUnitThenRetry(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	mustRun(t, s, "r1")
	u := Unit{Fingerprint: "fp-x", Kind: "judge", StageKey: "judge", RunID: "r1"}
	if err := s.FailUnit(ctx, u, "timeout"); err != nil {
		t.Fatal(err)
	}
	st, _ := s.GetUnit(ctx, "fp-x")
	if st.State != UnitFailed || st.Error != "timeout" || st.Attempts != 1 {
		t.Fatalf("%+v", st)
	}
	counts, _ := s.RunUnitCounts(ctx, "r1")
	if counts["judge"].Failed != 1 {
		t.Fatalf("counts %+v", counts)
	}
	if err := s.StartUnit(ctx, u); err != nil {
		t.Fatal(err)
	}
	if err := s.CommitUnit(ctx, u, nil); err != nil {
		t.Fatal(err)
	}
	st, _ = s.GetUnit(ctx, "fp-x")
	if st.State != UnitDone || st.Error != "" || st.Attempts != 2 {
		t.Fatalf("%+v", st)
	}
	if err := s.FailUnit(ctx, u, "late"); err != nil {
		t.Fatal(err)
	}
	if st, _ = s.GetUnit(ctx, "fp-x"); st.State != UnitDone {
		t.Fatal("FailUnit undid a done unit")
	}
}

func TestLinksAreEnforced(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	mustRun(t, s, "r1")
	u := Unit{Fingerprint: "fp-j", Kind: "judge", StageKey: "judge", RunID: "r1"}
	cases := map[string]func(tx *Tx) error{
		"two items": func(tx *Tx) error {
			id, err := tx.InsertEpisode(sampleEpisode("c"))
			if err != nil {
				return err
			}
			_, err = tx.InsertJudgment(Judgment{Criterion: "x", Score: 1, EpisodeID: id, TurnID: 1})
			return err
		},
		"no item": func(tx *Tx) error {
			_, err := tx.InsertJudgment(Judgment{Criterion: "x", Score: 1})
			return err
		},
		"orphan turn": func(tx *Tx) error {
			_, err := tx.InsertJudgment(Judgment{Criterion: "x", Score: 1, TurnID: 12345})
			return err
		},
		"orphan pair": func(tx *Tx) error {
			_, err := tx.InsertPair(Pair{ChosenID: 1, RejectedID: 2})
			return err
		},
		"bad choice": func(tx *Tx) error {
			_, err := tx.InsertComparison(Comparison{Systems: []string{"a", "b"}, Choice: "c"})
			return err
		},
		"artifact without hash": func(tx *Tx) error {
			_, err := tx.InsertArtifact(Artifact{Path: "x"})
			return err
		},
	}
	for name, fn := range cases {
		if err := s.CommitUnit(ctx, u, fn); err == nil {
			t.Errorf("%s: committed", name)
		}
	}
	if n := count(t, s, `SELECT COUNT(*) FROM judgments`) + count(t, s, `SELECT COUNT(*) FROM episodes`); n != 0 {
		t.Fatalf("%d rows left", n)
	}
}

func TestLLMCacheAndTrace(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	mustRun(t, s, "r1")
	c := s.LLMCache()
	if _, ok, err := c.Get(ctx, "k1"); ok || err != nil {
		t.Fatalf("empty cache hit %v %v", ok, err)
	}
	if err := c.Put(ctx, "k1", []byte(`{"choices":["hi"]}`)); err != nil {
		t.Fatal(err)
	}
	got, ok, err := c.Get(ctx, "k1")
	if !ok || err != nil || string(got) != `{"choices":["hi"]}` {
		t.Fatalf("%s %v %v", got, ok, err)
	}
	u := Unit{Fingerprint: "fp-l", Kind: "candidates", StageKey: "cand", RunID: "r1"}
	err = s.CommitUnit(ctx, u, func(tx *Tx) error {
		return tx.PutLLMCall(LLMCall{Key: "k1", Role: "speaker", ModelID: "m",
			Request:      []byte(`{"messages":[],"api_key":"sk-secret","headers":{"Authorization":"Bearer x"}}`),
			PromptTokens: 10, CompletionTokens: 3})
	})
	if err != nil {
		t.Fatal(err)
	}
	var req, resp, unit string
	s.r.QueryRow(`SELECT request_json, response_json, unit_fp FROM llm_calls WHERE key = 'k1'`).Scan(&req, &resp, &unit)
	if strings.Contains(req, "secret") || strings.Contains(req, "Bearer") {
		t.Fatalf("credentials stored: %s", req)
	}
	if resp != `{"choices":["hi"]}` || unit != "fp-l" {
		t.Fatalf("trace lost the cached response or unit: %s %s", resp, unit)
	}
}

func TestRunsCountersAndResolve(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	if err := s.CreateRun(ctx, Run{ID: "20260101-000000-aaaa", Name: "sweep", ConfigName: "sweeps/lr"}); err != nil {
		t.Fatal(err)
	}
	if err := s.CreateRun(ctx, Run{ID: "20260101-000001-bbbb", Name: "child", ParentID: "20260101-000000-aaaa",
		AxesJSON: []byte(`{"lr":0.1}`)}); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if err := s.AddCounters(ctx, "20260101-000001-bbbb", "gen", map[string]int64{"num_generation_failures": 2, "retries": 1}); err != nil {
			t.Fatal(err)
		}
	}
	s.AddCounters(ctx, "20260101-000001-bbbb", "judge", map[string]int64{"retries": 5})
	s.SetCounters(ctx, "20260101-000001-bbbb", "", map[string]int64{"latency_p50_ms": 120})
	s.SetCounters(ctx, "20260101-000001-bbbb", "", map[string]int64{"latency_p50_ms": 130})
	if err := s.UpsertStage(ctx, Stage{RunID: "20260101-000001-bbbb", Key: "gen", Kind: "episodes", UnitsTotal: 10}); err != nil {
		t.Fatal(err)
	}
	if err := s.UpsertStage(ctx, Stage{RunID: "20260101-000001-bbbb", Key: "gen", Kind: "episodes", UnitsTotal: 10, UnitsDone: 4, Status: "running"}); err != nil {
		t.Fatal(err)
	}
	if err := s.FinishRun(ctx, "20260101-000001-bbbb", RunDone, `{"note":"ok"}`); err != nil {
		t.Fatal(err)
	}
	if err := s.FinishRun(ctx, "missing", RunDone, ""); !errors.Is(err, ErrNotFound) {
		t.Fatalf("finish missing: %v", err)
	}
	d, err := s.GetRunDetail(ctx, "20260101-000000-aaaa")
	if err != nil || len(d.Children) != 1 {
		t.Fatalf("%+v %v", d, err)
	}
	d, err = s.GetRunDetail(ctx, "20260101-000001-bbbb")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int64{"num_generation_failures": 6, "retries": 8, "latency_p50_ms": 130}
	for k, v := range want {
		if d.Counters[k] != v {
			t.Errorf("counter %s = %d, want %d", k, d.Counters[k], v)
		}
	}
	if len(d.Stages) != 1 || d.Stages[0].UnitsDone != 4 || d.Stages[0].Status != "running" {
		t.Fatalf("stages %+v", d.Stages)
	}
	if d.Run.Status != RunDone || d.Run.FinishedAt.IsZero() {
		t.Fatalf("run %+v", d.Run)
	}
	for ref, want := range map[string]string{
		"latest": "20260101-000001-bbbb", "sweep": "20260101-000000-aaaa", "20260101-000000": "20260101-000000-aaaa",
	} {
		r, err := s.ResolveRun(ctx, ref)
		if err != nil || r.ID != want {
			t.Errorf("resolve %q = %q %v", ref, r.ID, err)
		}
	}
	if _, err := s.ResolveRun(ctx, "2026"); !errors.Is(err, ErrAmbiguous) {
		t.Errorf("ambiguous prefix: %v", err)
	}
	if _, err := s.ResolveRun(ctx, "zzz"); !errors.Is(err, ErrNotFound) {
		t.Errorf("missing: %v", err)
	}
	ls, err := s.ListRuns(ctx, RunFilter{TopLevel: true})
	if err != nil || len(ls) != 1 || ls[0].ID != "20260101-000000-aaaa" {
		t.Fatalf("top-level %+v %v", ls, err)
	}
	ls, err = s.ListRuns(ctx, RunFilter{Sort: "name", Asc: true})
	if err != nil || len(ls) != 2 || ls[0].Name != "child" || ls[0].Counters["retries"] != 8 {
		t.Fatalf("by name %+v %v", ls, err)
	}
	if _, err := s.ListRuns(ctx, RunFilter{Sort: "bogus"}); err == nil {
		t.Fatal("bogus sort accepted")
	}
}
