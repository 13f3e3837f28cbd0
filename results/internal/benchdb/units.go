package benchdb

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"mascot.dev/mascot/experiments/prompts"
	"mascot.dev/mascot/results"
)

// builder writes the units of the benchmark run and remembers them per
// stage for the second run.
type builder struct {
	s          *results.Store
	ctx        context.Context
	rubric     prompts.Rubric
	stages     []string
	stageUnits map[string][]string
}

// commit commits one unit of a stage of the benchmark run.
func (b *builder) commit(stage, kind, fp string, fn func(tx *results.Tx) error) error {
	u := results.Unit{Fingerprint: fp, Kind: kind, StageKey: stage, RunID: RunID}
	if err := b.s.CommitUnit(b.ctx, u, fn); err != nil {
		return fmt.Errorf("committing %s: %w", fp, err)
	}
	if _, ok := b.stageUnits[stage]; !ok {
		b.stages = append(b.stages, stage)
	}
	b.stageUnits[stage] = append(b.stageUnits[stage], fp)
	return nil
}

// text is filler of about n bytes, different per seed.
func text(seed, n int) string {
	base := fmt.Sprintf("[%d] I hear how heavy this week has been for you, and it makes sense to feel worn out. ", seed)
	return strings.Repeat(base, n/len(base)+1)[:n]
}

// trace is a traced chat call of about 1.5 KB of request and 300 B of
// response.
func trace(tx *results.Tx, role string, seed int) error {
	req, err := json.Marshal(map[string]any{"model": "Qwen/Qwen3-8B", "temperature": 0.7,
		"messages": []map[string]string{{"role": "system", "content": text(seed, 900)}, {"role": "user", "content": text(seed+1, 500)}}})
	if err != nil {
		return err
	}
	resp, err := json.Marshal(map[string]any{"choices": []any{map[string]any{"message": map[string]string{
		"role": "assistant", "content": text(seed+2, 250)}}}})
	if err != nil {
		return err
	}
	return tx.PutLLMCall(results.LLMCall{Role: role, ModelID: "Qwen/Qwen3-8B", URL: "http://gpu01:8000/v1",
		Request: req, Response: resp, PromptTokens: 380, CompletionTokens: 60, Attempts: 1})
}

// episode builds evaluation or branching episode i.
func episode(i int, mode string) results.Episode {
	ep := results.Episode{Idx: 0, ConvID: fmt.Sprintf("conv-%06d", i), System: systems[i%len(systems)],
		Dataset: "empathetic_dialogues", Valence: valences[(i/len(systems))%len(valences)], Mode: mode,
		Metadata: results.Metadata{SchemaVersion: results.SchemaVersionJSONL, System: systems[i%len(systems)],
			Dataset: "empathetic_dialogues", PersonaSet: "default", RubricVersion: "paper_v1"}}
	round := 0
	for k := range AgentTurns + UserTurns {
		t := results.Turn{TurnIdx: k, RoundID: &round, AgentName: "The Anchor", Response: text(i*10+k, 240)}
		if k%2 == 1 {
			t.TurnType, t.AgentName = "user", "user"
			round++
		} else {
			t.Directive = &results.Directive{AgentName: "The Anchor", Action: "validate the user's feelings", Tone: "warm"}
		}
		ep.Turns = append(ep.Turns, t)
	}
	return ep
}

// evalEpisode writes evaluation episode i with its per-agent and
// collective judgments.
func (b *builder) evalEpisode(i int) error {
	var epID int64
	var turnIDs []int64
	err := b.commit("eval", "episodes", fmt.Sprintf("eval-%06d", i), func(tx *results.Tx) error {
		var err error
		if epID, err = tx.InsertEpisode(episode(i, results.ModeEval)); err != nil {
			return err
		}
		rows, err := tx.SQL().Query(`SELECT id FROM turns WHERE episode_id = ? AND turn_type <> 'user' ORDER BY turn_idx`, epID)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				return err
			}
			turnIDs = append(turnIDs, id)
		}
		if err := rows.Err(); err != nil {
			return err
		}
		for k := range AgentTurns + UserTurns {
			if err := trace(tx, "speaker", i*10+k); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	err = b.commit("judge_eval_agent", "judge", fmt.Sprintf("judge-agent-%06d", i), func(tx *results.Tx) error {
		var js []results.Judgment
		for k, tid := range turnIDs {
			for c, cr := range b.rubric.Agent {
				for _, j := range judges {
					js = append(js, results.Judgment{Judge: j, RubricVersion: b.rubric.Version, Criterion: cr.ID,
						Score: float64(1 + (i*7+k*3+c)%5), TurnID: tid, Rationale: text(i+c, 80)})
				}
			}
		}
		if _, err := tx.InsertJudgments(js); err != nil {
			return err
		}
		return trace(tx, "judge", i)
	})
	if err != nil {
		return err
	}
	return b.commit("judge_eval_collective", "judge", fmt.Sprintf("judge-coll-%06d", i), func(tx *results.Tx) error {
		if err := b.collective(tx, i, epID); err != nil {
			return err
		}
		return trace(tx, "judge", i+1)
	})
}

// collective inserts the collective judgments of one episode.
func (b *builder) collective(tx *results.Tx, i int, epID int64) error {
	var js []results.Judgment
	for c, cr := range b.rubric.Collective {
		for _, j := range judges {
			js = append(js, results.Judgment{Judge: j, RubricVersion: b.rubric.Version, Criterion: cr.ID,
				Score: float64(1 + (i*11+c*5)%5), EpisodeID: epID, Rationale: text(i+c, 80)})
		}
	}
	_, err := tx.InsertJudgments(js)
	return err
}

// branchingEpisode writes training-time episode i with its collective
// judgments.
func (b *builder) branchingEpisode(i int) error {
	var epID int64
	err := b.commit("branching", "episodes", fmt.Sprintf("branching-%06d", i), func(tx *results.Tx) error {
		var err error
		epID, err = tx.InsertEpisode(episode(i, results.ModeBranching))
		return err
	})
	if err != nil {
		return err
	}
	return b.commit("judge_branching", "judge", fmt.Sprintf("judge-branching-%06d", i), func(tx *results.Tx) error {
		return b.collective(tx, i, epID)
	})
}

// candidates writes candidates unit i, the judgments of its candidates
// and its preference pairs.
func (b *builder) candidates(i int) error {
	var ids []int64
	ctxID := fmt.Sprintf("train-%06d", i)
	err := b.commit("candidates", "candidates", fmt.Sprintf("candidates-%06d", i), func(tx *results.Tx) error {
		cs := make([]results.Candidate, CandidatesK)
		for k := range cs {
			cs[k] = results.Candidate{Kind: "response", ContextID: ctxID, Persona: "The Anchor", SampleIdx: k,
				Prompt: text(i, 1200), Text: text(i*CandidatesK+k, 240), ModelID: "Qwen/Qwen3-8B"}
		}
		var err error
		if ids, err = tx.InsertCandidates(cs); err != nil {
			return err
		}
		for k := range cs {
			if err := trace(tx, "speaker", i*CandidatesK+k); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	err = b.commit("judge_candidates", "judge", fmt.Sprintf("judge-candidates-%06d", i), func(tx *results.Tx) error {
		var js []results.Judgment
		for k, id := range ids {
			for c, cr := range b.rubric.Agent {
				for _, j := range judges {
					js = append(js, results.Judgment{Judge: j, RubricVersion: b.rubric.Version, Criterion: cr.ID,
						Score: float64(1 + (i*5+k*3+c)%5), CandidateID: id, Rationale: text(k+c, 80)})
				}
			}
		}
		_, err := tx.InsertJudgments(js)
		return err
	})
	if err != nil {
		return err
	}
	return b.commit("persona_pairs", "pairs", fmt.Sprintf("pairs-%06d", i), func(tx *results.Tx) error {
		ps := make([]results.Pair, PairsPerUnit)
		for k := range ps {
			ps[k] = results.Pair{ContextID: ctxID, Persona: "The Anchor", ChosenID: ids[2*k], RejectedID: ids[2*k+1],
				ChosenScore: 4, RejectedScore: 2, Margin: 2}
		}
		_, err := tx.InsertPairs(ps)
		return err
	})
}

// metrics writes metrics unit u: the per-episode metrics of evaluation
// episodes [u·MetricsPerUnit, end).
func (b *builder) metrics(u, end int) error {
	return b.commit("metrics_eval", "metrics", fmt.Sprintf("metrics-%04d", u), func(tx *results.Tx) error {
		rows, err := tx.SQL().Query(`SELECT e.id, e.system FROM episodes e JOIN units un ON un.fingerprint = e.unit_fp
			WHERE un.stage_key = 'eval' AND e.conv_id >= ? AND e.conv_id < ? ORDER BY e.id`,
			fmt.Sprintf("conv-%06d", u*MetricsPerUnit), fmt.Sprintf("conv-%06d", end))
		if err != nil {
			return err
		}
		var ms []results.Metric
		for rows.Next() {
			var id int64
			var sys string
			if err := rows.Scan(&id, &sys); err != nil {
				rows.Close()
				return err
			}
			ms = append(ms, results.Metric{EpisodeID: id, System: sys, Name: "self-bleu", Value: float64(id%97) / 97},
				results.Metric{EpisodeID: id, System: sys, Name: "distinct-2", Value: float64(id%89) / 89})
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		_, err = tx.InsertMetrics(ms)
		return err
	})
}
