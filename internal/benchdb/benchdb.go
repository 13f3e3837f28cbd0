// Package benchdb builds the synthetic results databases the benchmarks of
// results, results/report, results/web and internal/benchsuite run on,
// shaped like a real run of paper/empathetic (the paper's defaults: 5 agent
// turns per episode, a simulated user answering about every other turn,
// one rubric judge whose scores come as a per-model row and a pooled row)
// and written through the public API, one unit commit at a time, as the
// runner writes them. Per evaluation episode:
//
//   - stage eval (episodes, mode eval): one unit per episode, 4 systems ×
//     3 valences, 5 agent turns with a directive and the Director's raw
//     output, 2 user turns, and a response cache row (llm_calls) per LLM
//     call: a Director and a Speaker call per agent turn, a User call per
//     user turn. The records are in the dialogue engine's form (ESConv:
//     user turns without agent_name and with the user's emotion, the
//     record's emotion keys and Big Five profile, the user's situation
//     among the metadata's extra keys; see episode), so that export,
//     import and the viewer read the keys a real run writes;
//   - judge_eval_agent: one unit per episode, 5 criteria × 2 judgment rows
//     (the judge model's, with its rationale and raw output, and the
//     pooled one) per agent turn, one cache row per judged turn;
//   - judge_eval_collective: one unit per episode, 4 criteria × 2 rows on
//     the episode, one cache row;
//   - metrics_eval: one unit per metric over all episodes, as the metrics
//     stage commits them (self-bleu: one value per episode; distinct-n:
//     two), committed after the episodes.
//
// The training side grows with the run, one training context per
// TrainEvery evaluation episodes (500 at 100,000, the paper config's train
// limit), per context: 3 candidates units (one per persona) of 8
// candidates each with their prompt, judged on the 5 per-agent criteria ×
// 2 rows (judge_candidates, one unit each), persona_pairs with 6 pairs per
// unit; 4 independent episodes (one unit each) judged collectively
// (judge_independent), and one branching episode with its judgments.
//
// At 100,000 evaluation episodes that is 5.94 million judgment rows and
// 309,502 units, the proportions of a real run of that size
// (docs/benchmarks.md compares them with a run of the demo). Criterion ids
// come from the rubric (experiments/prompts). A second run, RunB, links
// every unit of the first (a cached rerun), for comparisons. Databases are
// cached under the OS temp dir, keyed by size and version.
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

const version = 5

// Shape of the run, per evaluation episode.
const (
	AgentTurns = 5
	UserTurns  = 2
	JudgeRows  = 2   // judge model + pooled
	TrainEvery = 200 // one training context per this many evaluation episodes
	Personas   = 3   // candidates units per training context
	// CandidatesK is the candidates per candidates unit.
	CandidatesK = 8
	// PairsPerUnit is the persona pairs per candidates unit.
	PairsPerUnit = 6
	// IndependentPerContext is the independent episodes per training context.
	IndependentPerContext = 4
)

var (
	systems  = []string{"mascot", "zero-shot", "few-shot-cot", "multiagent-esc"}
	valences = []string{"positive", "negative", "neutral"}
	personas = [Personas]string{"The Anchor", "The Spark", "The Sage"}
	// emotions are ESConv's emotion types, the user's stated emotions.
	emotions = []string{"anxiety", "depression", "sadness", "anger", "fear", "shame", "disgust"}
	judges   = [JudgeRows]string{"rubric/gemma-3-27b-it", "rubric"}
)

// TrainContexts is the number of training contexts of a database with n
// evaluation episodes.
func TrainContexts(n int) int { return (n + TrainEvery - 1) / TrainEvery }

// Path returns (building it first if needed) a database with n evaluation
// episodes.
func Path(n int) (string, error) {
	path := filepath.Join(os.TempDir(), fmt.Sprintf("mascot-benchdb-v%d-%d.db", version, n))
	if _, err := os.Stat(path); err == nil {
		err := fillScores(path)
		if err == nil {
			return path, nil
		}
		// Another checkout sharing the temp dir migrated it past this
		// mascot's schema (ErrSchemaNewer), or along a branch's migrations
		// that this one's cannot follow: it is left to that checkout, and
		// this one builds a copy of its own.
		own := filepath.Join(os.TempDir(), fmt.Sprintf("mascot-benchdb-v%d-s%d-%d.db", version, results.SchemaVersion(), n))
		fmt.Fprintf(os.Stderr, "benchdb: %s does not open with this mascot's schema (%v); using %s\n", path, err, own)
		path = own
		if _, err := os.Stat(path); err == nil {
			return path, fillScores(path)
		}
	}
	tmp := path + ".building"
	_ = results.RemoveDB(tmp)
	if err := Build(tmp, n); err != nil {
		return "", fmt.Errorf("building benchmark database: %w", err)
	}
	for _, suf := range []string{"-wal", "-shm"} {
		os.Remove(tmp + suf)
	}
	return path, os.Rename(tmp, path)
}

// fillScores computes the unit score sums a database cached before
// migration 0008 lacks (results.Store.FillUnitScores) and the runs' report
// blocks one cached before migration 0017 lacks (as a finished run's first
// report would); a no-op on one built since, whose commits wrote both.
func fillScores(path string) error {
	ctx := context.Background()
	s, err := results.Open(path)
	if err != nil {
		return err
	}
	if _, err := s.FillUnitScores(ctx); err != nil {
		s.Close()
		return fmt.Errorf("filling score sums of %s: %w", path, err)
	}
	for _, run := range []string{RunID, RunB} {
		current, err := s.ReportBlocksCurrent(ctx, run)
		if err == nil && !current {
			err = s.RebuildReportBlocks(ctx, run)
		}
		if err != nil {
			s.Close()
			return fmt.Errorf("building report blocks of %s: %w", path, err)
		}
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
	// Training first, as the pipeline runs it: stage 1, then stage 2.
	contexts := TrainContexts(n)
	for c := range contexts {
		for p := range Personas {
			if err := b.candidates(c*Personas + p); err != nil {
				return err
			}
		}
	}
	for c := range contexts {
		for k := range IndependentPerContext {
			if err := b.trainingEpisode("independent", results.ModeIndependent, c*IndependentPerContext+k); err != nil {
				return err
			}
		}
		if err := b.trainingEpisode("branching", results.ModeBranching, c); err != nil {
			return err
		}
	}
	for i := range n {
		if err := b.evalEpisode(i); err != nil {
			return err
		}
	}
	if err := b.metrics(); err != nil {
		return err
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
