package benchdb

import (
	"path/filepath"
	"strings"
	"testing"

	"mascot.dev/mascot/results"
	"mascot.dev/mascot/results/jsonl"
)

// TestBuildShape: a small benchmark database holds the documented rows.
func TestBuildShape(t *testing.T) {
	const n = 400
	path := filepath.Join(t.TempDir(), "b.db")
	if err := Build(path, n); err != nil {
		t.Fatal(err)
	}
	s, err := results.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctxs := TrainContexts(n)
	cand, indep := ctxs*Personas, ctxs*IndependentPerContext
	episodes := n + indep + ctxs
	units := 3*n + 2 + 3*cand + 2*indep + 2*ctxs
	agentCalls := AgentTurns*2 + UserTurns // director + speaker per agent turn, user per user turn
	for _, c := range []struct {
		query string
		want  int
	}{
		{`SELECT COUNT(*) FROM episodes WHERE mode = 'eval'`, n},
		{`SELECT COUNT(*) FROM episodes WHERE mode = 'branching'`, ctxs},
		{`SELECT COUNT(*) FROM episodes WHERE mode = 'independent'`, indep},
		{`SELECT COUNT(*) FROM turns`, episodes * (AgentTurns + UserTurns)},
		{`SELECT COUNT(*) FROM turns WHERE turn_type = 'user'`, episodes * UserTurns},
		{`SELECT COUNT(*) FROM judgments WHERE turn_id IS NOT NULL`, n * AgentTurns * 5 * JudgeRows},
		{`SELECT COUNT(*) FROM judgments WHERE episode_id IS NOT NULL`, episodes * 4 * JudgeRows},
		{`SELECT COUNT(*) FROM judgments WHERE candidate_id IS NOT NULL`, cand * CandidatesK * 5 * JudgeRows},
		{`SELECT COUNT(*) FROM candidates`, cand * CandidatesK},
		{`SELECT COUNT(*) FROM pairs`, cand * PairsPerUnit},
		{`SELECT COUNT(*) FROM metrics`, 3 * n},
		{`SELECT COUNT(*) FROM llm_calls`, episodes*(agentCalls+1) + n*AgentTurns + cand*CandidatesK*2},
		{`SELECT COUNT(*) FROM run_units WHERE run_id = 'bench'`, units},
		{`SELECT COUNT(*) FROM run_units WHERE run_id = 'bench-b'`, units},
	} {
		var got int
		if err := s.Reader().QueryRow(c.query).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != c.want {
			t.Errorf("%s = %d, want %d", c.query, got, c.want)
		}
	}
}

// TestBuildRecordsAsTheEngineWrites: the episodes read back in the form
// the dialogue engine writes (so that import, export and the viewer are
// measured on the keys a real run has): agent turns typed "agent" with a
// directive and the Director's output, user turns without agent_name and
// with the user's emotion, the emotion keys and Big Five profile of the
// record, and the user's situation among the metadata's extra keys.
func TestBuildRecordsAsTheEngineWrites(t *testing.T) {
	path := filepath.Join(t.TempDir(), "b.db")
	if err := Build(path, 8); err != nil {
		t.Fatal(err)
	}
	s, err := results.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	n := 0
	err = s.ForEachEpisode(t.Context(), RunID, func(ep *results.Episode) error {
		n++
		line, err := jsonl.Encode(&ep.Record)
		if err != nil {
			return err
		}
		for _, want := range []string{`"initial_emotion":`, `"emotion_trajectory":[`, `"user_big_five":{`,
			`"situation":"`, `"agents_spoken":{`, `"turn_type":"agent","directive":{"agent_name":`, `"directive_output":`} {
			if !strings.Contains(string(line), want) {
				t.Errorf("%s: the line has no %s: %.300s", ep.ConvID, want, line)
			}
		}
		users := 0
		for _, tu := range ep.Turns {
			if tu.TurnType != jsonl.TurnUser {
				continue
			}
			users++
			u, err := jsonl.Encode(&jsonl.Record{Turns: []jsonl.Turn{tu}})
			if err != nil {
				return err
			}
			if strings.Contains(string(u), `"agent_name"`) || tu.Emotion() == "" {
				t.Errorf("%s: a user turn not as the engine writes one: %s", ep.ConvID, u)
			}
		}
		if users != UserTurns {
			t.Errorf("%s: %d user turns, want %d", ep.ConvID, users, UserTurns)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatal("no episodes read")
	}
}
