// Package benchdb builds the synthetic results databases the benchmarks of
// results and results/report run on: a run of N episodes over 4 systems × 3
// valences, 5 turns each, with 5 per-agent and 4 collective judgments per
// episode, written through the public API in units of 100 episodes.
// Databases are cached under the OS temp dir, keyed by size and version.
package benchdb

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"mascot.dev/mascot/results"
)

// RunID is the id of the benchmark run.
const RunID = "bench"

const version = 1

// PerUnit is the number of episodes each generation/judge unit holds.
const PerUnit = 100

var (
	systems   = []string{"mascot", "zero-shot", "few-shot-cot", "multiagent-esc"}
	valences  = []string{"positive", "negative", "neutral"}
	agentCrit = []string{"Emotional Expressiveness", "Empathetic Support Quality", "Consistency",
		"Response Relevance", "Social Contribution"}
	collCrit = []string{"Fidelity", "Originality & Specificity", "Relevance & Coherence", "Engagement & Contribution"}
)

// Path returns (building it first if needed) a database with n episodes.
func Path(n int) (string, error) {
	path := filepath.Join(os.TempDir(), fmt.Sprintf("mascot-benchdb-v%d-%d.db", version, n))
	if _, err := os.Stat(path); err == nil {
		return path, nil
	}
	tmp := path + ".building"
	for _, suf := range []string{"", "-wal", "-shm"} {
		os.Remove(tmp + suf)
	}
	if err := build(tmp, n); err != nil {
		return "", err
	}
	for _, suf := range []string{"-wal", "-shm"} {
		os.Remove(tmp + suf)
	}
	return path, os.Rename(tmp, path)
}

func build(path string, n int) error {
	ctx := context.Background()
	s, err := results.Open(path)
	if err != nil {
		return err
	}
	defer s.Close()
	if err := s.CreateRun(ctx, results.Run{ID: RunID, Name: "bench", ConfigName: "bench"}); err != nil {
		return err
	}
	for u := 0; u*PerUnit < n; u++ {
		ids := make([]int64, 0, PerUnit)
		gen := results.Unit{Fingerprint: fmt.Sprintf("gen-%d", u), Kind: "episodes", StageKey: "gen", RunID: RunID}
		err := s.CommitUnit(ctx, gen, func(tx *results.Tx) error {
			for i := u * PerUnit; i < min(n, (u+1)*PerUnit); i++ {
				ep := results.Episode{Idx: i, ConvID: fmt.Sprintf("conv-%06d", i), System: systems[i%len(systems)],
					Dataset: "empathetic_dialogues", Valence: valences[(i/len(systems))%len(valences)]}
				for k := range 5 {
					ep.Turns = append(ep.Turns, results.Turn{TurnIdx: k, AgentName: "The Anchor",
						Response: fmt.Sprintf("turn %d of conversation %d, some text to make it realistic", k, i)})
				}
				id, err := tx.InsertEpisode(ep)
				if err != nil {
					return err
				}
				ids = append(ids, id)
			}
			return nil
		})
		if err != nil {
			return err
		}
		judge := results.Unit{Fingerprint: fmt.Sprintf("judge-%d", u), Kind: "judge", StageKey: "judge", RunID: RunID}
		err = s.CommitUnit(ctx, judge, func(tx *results.Tx) error {
			for k, id := range ids {
				seed := u*PerUnit + k
				for c, crit := range agentCrit {
					sc := float64(1 + (seed*7+c*3)%5)
					if _, err := tx.InsertJudgment(results.Judgment{Judge: "gpt-4o", Criterion: crit, Agent: "The Anchor",
						Score: sc, EpisodeID: id}); err != nil {
						return err
					}
				}
				for c, crit := range collCrit {
					sc := float64(1 + (seed*11+c*5)%5)
					if _, err := tx.InsertJudgment(results.Judgment{Judge: "gpt-4o", Criterion: crit, Score: sc,
						EpisodeID: id}); err != nil {
						return err
					}
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}
