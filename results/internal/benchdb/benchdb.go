// Package benchdb builds the synthetic results databases the benchmarks of
// results, results/report and results/web run on, shaped like a real
// pipeline run (paper/empathetic) and written through the public API, one
// unit commit at a time, as the runner writes them:
//
//   - stage eval (episodes, mode eval): one unit per episode, 4 systems ×
//     3 valences, 5 turns (3 agent turns with a directive, 2 user turns),
//     one trace row (llm_calls) per turn;
//   - judge_eval_agent: one unit per episode, 5 criteria × 2 judgment rows
//     (the judge model's and the pooled one) per agent turn, one trace row;
//   - judge_eval_collective: one unit per episode, 4 criteria × 2 rows on
//     the episode, one trace row;
//   - metrics_eval: one unit per 1000 episodes, self-bleu and distinct-2
//     per episode;
//   - branching (mode branching, training-time): one episode per 10
//     evaluation episodes, with judge_branching's collective judgments;
//   - candidates: one unit per 20 evaluation episodes holding 8 candidates,
//     each judged on the 5 per-agent criteria × 2 rows (judge_candidates),
//     and persona_pairs: 4 pairs per candidates unit.
//
// Criterion ids come from the rubric (experiments/prompts). A second run,
// RunB, links every unit of the first (a cached rerun), for comparisons.
// Databases are cached under the OS temp dir, keyed by size and version.
package benchdb

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"mascot.dev/mascot/experiments/prompts"
	"mascot.dev/mascot/results"
)

// RunID is the id of the benchmark run; RunB reuses all its units.
const (
	RunID = "bench"
	RunB  = "bench-b"
)

const version = 2

// Shape of the run, per evaluation episode.
const (
	AgentTurns      = 3
	UserTurns       = 2
	JudgeRows       = 2    // judge model + pooled
	BranchingEvery  = 10   // one branching episode per this many evaluation episodes
	CandidatesEvery = 20   // one candidates unit per this many evaluation episodes
	CandidatesK     = 8    // candidates per candidates unit
	PairsPerUnit    = 4    // persona pairs per candidates unit
	MetricsPerUnit  = 1000 // episodes per metrics unit
)

var (
	systems  = []string{"mascot", "zero-shot", "few-shot-cot", "multiagent-esc"}
	valences = []string{"positive", "negative", "neutral"}
	judges   = [JudgeRows]string{"rubric/gemma-3-27b-it", "rubric"}
)

// Path returns (building it first if needed) a database with n evaluation
// episodes.
func Path(n int) (string, error) {
	path := filepath.Join(os.TempDir(), fmt.Sprintf("mascot-benchdb-v%d-%d.db", version, n))
	if _, err := os.Stat(path); err == nil {
		return path, fillScores(path)
	}
	tmp := path + ".building"
	for _, suf := range []string{"", "-wal", "-shm"} {
		os.Remove(tmp + suf)
	}
	if err := Build(tmp, n); err != nil {
		return "", fmt.Errorf("building benchmark database: %w", err)
	}
	for _, suf := range []string{"-wal", "-shm"} {
		os.Remove(tmp + suf)
	}
	return path, os.Rename(tmp, path)
}

// fillScores computes the unit score sums a database cached before
// migration 0008 lacks (results.Store.FillUnitScores); a no-op on one
// built since, whose commits wrote them.
func fillScores(path string) error {
	s, err := results.Open(path)
	if err != nil {
		return err
	}
	if _, err := s.FillUnitScores(context.Background()); err != nil {
		s.Close()
		return fmt.Errorf("filling score sums of %s: %w", path, err)
	}
	return s.Close()
}

// Build writes the benchmark runs with n evaluation episodes into a new
// database at path.
func Build(path string, n int) error {
	ctx := context.Background()
	s, err := results.Open(path)
	if err != nil {
		return err
	}
	defer s.Close()
	b := &builder{s: s, ctx: ctx, rubric: prompts.Paper(), stageUnits: map[string][]string{}}
	if err := s.CreateRun(ctx, results.Run{ID: RunID, Name: "bench", ConfigName: "paper/empathetic"}); err != nil {
		return err
	}
	for i := range n {
		if err := b.evalEpisode(i); err != nil {
			return err
		}
		if i%BranchingEvery == 0 {
			if err := b.branchingEpisode(i / BranchingEvery); err != nil {
				return err
			}
		}
		if i%CandidatesEvery == 0 {
			if err := b.candidates(i / CandidatesEvery); err != nil {
				return err
			}
		}
	}
	for u := 0; u*MetricsPerUnit < n; u++ {
		if err := b.metrics(u, min(n, (u+1)*MetricsPerUnit)); err != nil {
			return err
		}
	}
	if err := s.FinishRun(ctx, RunID, results.RunDone, "{}"); err != nil {
		return err
	}
	if err := s.CreateRun(ctx, results.Run{ID: RunB, Name: "bench-b", ConfigName: "paper/empathetic"}); err != nil {
		return err
	}
	for _, stage := range b.stages {
		if _, err := s.LinkUnits(ctx, RunB, stage, b.stageUnits[stage]); err != nil {
			return err
		}
	}
	return s.FinishRun(ctx, RunB, results.RunDone, "{}")
}
