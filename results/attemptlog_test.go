package results

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"testing"
)

// TestAttemptLogCountsEachAttemptOnce records four attempts of a live run
// in its journal, stores the outcome of two (one of them twice, as the
// cache's write-behind and the unit's commit may both do), and then, once
// the run is dead, settles the journal: the two never settled are lost,
// and every attempt is counted exactly once.
func TestAttemptLogCountsEachAttemptOnce(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	if err := s.CreateRun(ctx, Owned(Run{ID: "r1", Name: "r1", Status: RunRunning})); err != nil {
		t.Fatal(err)
	}
	log := s.AttemptLog("r1")
	var as []Attempt
	for i := int64(1); i <= 4; i++ {
		a := Attempt{ID: AttemptID("r1", i), Seq: i, RunID: "r1", StageKey: "cand", Role: "speaker",
			Key: "u|speaker|" + string(rune('a'+i)), N: 1}
		if err := log.Record(a); err != nil {
			t.Fatal(err)
		}
		as = append(as, a)
	}
	reply := json.RawMessage(`{"choices":["hi"]}`)
	if err := s.LLMCache().PutReplies(ctx, []Reply{{Key: as[0].Key, JSON: reply, Settles: as[:1]}}, nil); err != nil {
		t.Fatal(err)
	}
	// the JSON is bound without a copy, and must still be stored as TEXT
	if n := count(t, s, `SELECT COUNT(*) FROM llm_calls WHERE key = ? AND typeof(response_json) = 'text'
		AND response_json = ?`, as[0].Key, string(reply)); n != 1 {
		t.Fatalf("%d text rows hold the stored reply, want 1", n)
	}
	for range 2 {
		if err := s.LLMCache().PutReplies(ctx, []Reply{{Key: as[1].Key, JSON: reply, Settles: as[1:2]}}, nil); err != nil {
			t.Fatal(err)
		}
	}
	counters := func() map[string]int64 {
		t.Helper()
		all, err := s.StageCounters(ctx, "r1")
		if err != nil {
			t.Fatal(err)
		}
		return all["cand"]
	}
	if got := counters()["llm.speaker.attempts"]; got != 2 {
		t.Fatalf("attempts counted after settling two (one twice): %d, want 2", got)
	}
	// Live: nothing is lost yet.
	if n, err := s.SettleLost(ctx); err != nil || n != 0 {
		t.Fatalf("SettleLost on a live run: %d, %v", n, err)
	}
	if _, err := os.Stat(log.Path()); err != nil {
		t.Fatalf("a live run's journal must stay: %v", err)
	}
	// A line torn by a kill during its write is no attempt.
	f, err := os.OpenFile(log.Path(), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("5\t1\t17"); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if _, err := s.w.Exec(`UPDATE runs SET status = ? WHERE id = 'r1'`, RunInterrupted); err != nil {
		t.Fatal(err)
	}
	// Read twice, as after a crash before the journal's removal: the
	// second reading adds nothing.
	for i, want := range []int{2, 0} {
		n, err := s.settleLog(ctx, "r1", log.Path())
		if err != nil || n != want {
			t.Fatalf("reading %d of the dead run's journal: %d lost, %v; want %d", i+1, n, err, want)
		}
	}
	if n, err := s.SettleLost(ctx); err != nil || n != 0 {
		t.Fatalf("SettleLost after the journal was read: %d, %v", n, err)
	}
	c := counters()
	if c["llm.speaker.attempts"] != 4 || c["llm.speaker.lost_in_flight"] != 2 {
		t.Fatalf("counters after the kill: attempts %d, lost %d; want 4, 2", c["llm.speaker.attempts"], c["llm.speaker.lost_in_flight"])
	}
	lost, err := s.LostAttempts(ctx)
	if err != nil || len(lost) != 2 || lost[0] != "r1.3" || lost[1] != "r1.4" {
		t.Fatalf("lost attempts %v, %v; want r1.3 and r1.4", lost, err)
	}
	if _, err := os.Stat(log.Path()); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the settled journal must be gone: %v", err)
	}
	if n := count(t, s, `SELECT COUNT(*) FROM llm_settled`); n != 0 {
		t.Fatalf("%d llm_settled rows left after the journal went", n)
	}
}

// TestAttemptLogFinish removes a finished run's journal and its rows.
func TestAttemptLogFinish(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	mustRun(t, s, "r2")
	log := s.AttemptLog("r2")
	a := Attempt{ID: AttemptID("r2", 1), Seq: 1, RunID: "r2", StageKey: "st", Role: "judge:x", Key: "k\t\"odd\"\n", N: 2}
	if err := log.Record(a); err != nil {
		t.Fatal(err)
	}
	got, err := readAttemptLog(log.Path(), "r2")
	if err != nil || len(got) != 1 || got[0].Attempt != a {
		t.Fatalf("journal read back as %+v, %v; want %+v", got, err, a)
	}
	if err := s.LLMCache().PutReplies(ctx, []Reply{{Key: "k", JSON: json.RawMessage(`{"choices":`), Settles: []Attempt{a}}},
		nil); err == nil {
		t.Fatal("a reply that is not JSON was stored")
	}
	if err := s.LLMCache().PutReplies(ctx, nil, []Attempt{a}); err != nil {
		t.Fatal(err)
	}
	if n := count(t, s, `SELECT COUNT(*) FROM llm_settled WHERE run_id = 'r2'`); n != 1 {
		t.Fatalf("%d settled rows, want 1", n)
	}
	if err := log.Finish(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(log.Path()); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Finish left the journal: %v", err)
	}
	if n := count(t, s, `SELECT COUNT(*) FROM llm_settled`); n != 0 {
		t.Fatalf("Finish left %d settled rows", n)
	}
	if err := log.Record(a); err == nil {
		t.Fatal("Record after Finish succeeded")
	}
}

// TestSettleCountsNewAttemptsOnly settles batches where some attempts are
// settled already or appear twice, both as one counter's attempts (a
// unit's requests: the rows inserted are the count) and mixed over roles
// and stages (each row inserted is counted where it belongs).
func TestSettleCountsNewAttemptsOnly(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	mustRun(t, s, "r1")
	at := func(seq int64, stage, role string) Attempt {
		return Attempt{ID: AttemptID("r1", seq), Seq: seq, RunID: "r1", StageKey: stage, Role: role, N: 1}
	}
	batches := [][]Attempt{
		{at(1, "cand", "speaker"), at(2, "cand", "speaker")},
		// 2 again, 3 twice: one new row
		{at(2, "cand", "speaker"), at(3, "cand", "speaker"), at(3, "cand", "speaker")},
		// mixed: 1 and 3 again, 4 and 5 new, in two counters
		{at(1, "cand", "speaker"), at(4, "cand", "judge"), at(3, "cand", "speaker"), at(5, "pairs", "speaker")},
	}
	for _, b := range batches {
		if err := s.LLMCache().PutReplies(ctx, nil, b); err != nil {
			t.Fatal(err)
		}
	}
	all, err := s.StageCounters(ctx, "r1")
	if err != nil {
		t.Fatal(err)
	}
	if got := [3]int64{all["cand"]["llm.speaker.attempts"], all["cand"]["llm.judge.attempts"],
		all["pairs"]["llm.speaker.attempts"]}; got != [3]int64{3, 1, 1} {
		t.Fatalf("attempts counted (cand speaker, cand judge, pairs speaker): %v, want [3 1 1]", got)
	}
	if n := count(t, s, `SELECT COUNT(*) FROM llm_settled`); n != 5 {
		t.Fatalf("%d llm_settled rows, want 5", n)
	}
}
