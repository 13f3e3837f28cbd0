package benchdb

import (
	"path/filepath"
	"testing"

	"mascot.dev/mascot/results"
)

// TestBuildShape: a small benchmark database holds the documented rows.
func TestBuildShape(t *testing.T) {
	const n = 200
	path := filepath.Join(t.TempDir(), "b.db")
	if err := Build(path, n); err != nil {
		t.Fatal(err)
	}
	s, err := results.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	branching, cand := n/BranchingEvery, n/CandidatesEvery
	for _, c := range []struct {
		query string
		want  int
	}{
		{`SELECT COUNT(*) FROM episodes WHERE mode = 'eval'`, n},
		{`SELECT COUNT(*) FROM episodes WHERE mode = 'branching'`, branching},
		{`SELECT COUNT(*) FROM turns`, (n + branching) * (AgentTurns + UserTurns)},
		{`SELECT COUNT(*) FROM judgments WHERE turn_id IS NOT NULL`, n * AgentTurns * 5 * JudgeRows},
		{`SELECT COUNT(*) FROM judgments WHERE episode_id IS NOT NULL`, (n + branching) * 4 * JudgeRows},
		{`SELECT COUNT(*) FROM judgments WHERE candidate_id IS NOT NULL`, cand * CandidatesK * 5 * JudgeRows},
		{`SELECT COUNT(*) FROM candidates`, cand * CandidatesK},
		{`SELECT COUNT(*) FROM pairs`, cand * PairsPerUnit},
		{`SELECT COUNT(*) FROM metrics`, 2 * n},
		{`SELECT COUNT(*) FROM llm_calls`, n*(AgentTurns+UserTurns+2) + cand*CandidatesK},
		{`SELECT COUNT(*) FROM run_units WHERE run_id = 'bench'`, 3*n + 2*branching + 3*cand + 1},
		{`SELECT COUNT(*) FROM run_units WHERE run_id = 'bench-b'`, 3*n + 2*branching + 3*cand + 1},
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
