package benchdb

import (
	"path/filepath"
	"testing"

	"mascot.dev/mascot/results"
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
