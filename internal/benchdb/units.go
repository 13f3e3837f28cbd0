package benchdb

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"mascot.dev/mascot/experiments/prompts"
	"mascot.dev/mascot/results"
	"mascot.dev/mascot/results/jsonl"
)

// builder writes the units of the benchmark run and remembers them per
// stage for the second run.
type builder struct {
	s          *results.Store
	ctx        context.Context
	rubric     prompts.Rubric
	stages     []string
	stageUnits map[string][]string
	evalIDs    []int64 // evaluation episode ids, in order
	evalSys    []string
}

// Lengths of the texts, in bytes, about those of a run of paper/empathetic
// with Qwen3-8B agents and a 27B judge.
const (
	responseLen  = 200  // an agent turn
	userLen      = 120  // a user turn
	directiveLen = 120  // the Director's raw output
	promptLen    = 2500 // a candidates prompt (system card, context)
	rationaleLen = 60   // one criterion's rationale
	judgeRawLen  = 250  // a judge call's raw output (every criterion of an item)
	situationLen = 110  // the ESConv user's situation, in the metadata
)

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

// cached writes the response cache row of one LLM call of the unit (the
// runner keys them "<unit fingerprint>|<role>|<position>").
func cached(tx *results.Tx, role string, pos, seed, n int) error {
	t := text(seed, n)
	resp, err := json.Marshal(map[string]any{"choices": []string{t}, "raw": []string{t},
		"finish_reasons": []string{"stop"}, "prompt_tokens": 380, "completion_tokens": n / 4, "model_id": "Qwen/Qwen3-8B"})
	if err != nil {
		return err
	}
	key := fmt.Sprintf("%s|%s|%d", tx.Unit().Fingerprint, role, pos)
	return tx.PutLLMCall(results.LLMCall{Key: key, Response: resp})
}

// episode builds episode i of a stage in the form the dialogue engine
// writes one (runner/dialogue, runner/stages/episodes): AgentTurns agent
// turns (jsonl.AgentTurn, the three personas of the roster in turn), a
// user turn after the second and the fourth (jsonl.UserTurn: no
// agent_name, the user's emotion), the record's emotion keys and Big Five
// profile, and the user's situation among the metadata's extra keys.
// Branching episodes carry their tree link there too, and at a branch
// point the Director prompt their children were drawn from.
func episode(i int, mode string) results.Episode {
	sys := systems[i%len(systems)]
	sit, _ := json.Marshal(text(i+9, situationLen))
	ep := results.Episode{Idx: 0, SampleIdx: i % 1300, System: sys, Dataset: "esconv", Valence: valences[(i/len(systems))%len(valences)],
		Mode: mode,
		Record: jsonl.Record{ConvID: fmt.Sprintf("esconv-%06d", i), Metadata: results.Metadata{SchemaVersion: jsonl.SchemaVersion, System: sys,
			Dataset: "esconv", PersonaSet: "big5", DirectorModel: "Qwen/Qwen3-8B",
			SpeakerModel: "Qwen/Qwen3-8B", UserModel: "Qwen/Qwen3-8B", RubricVersion: "paper_v1",
			Extra: map[string]json.RawMessage{"situation": sit}}}}
	round := 0
	trajectory := []string{emotions[i%len(emotions)]}
	spoken := map[string]int{}
	for k := range AgentTurns {
		agent := personas[(i+k)%len(personas)]
		out := text(i*10+k+5, directiveLen)
		d := jsonl.Directive{AgentName: agent, Action: "validate the user's feelings", Tone: "warm"}
		ep.Turns = append(ep.Turns, jsonl.AgentTurn(len(ep.Turns), round, agent, text(i*10+k, responseLen), d, out))
		spoken[agent]++
		if k == 1 || k == 3 {
			emotion := emotions[(i+k)%len(emotions)]
			trajectory = append(trajectory, emotion)
			ep.Turns = append(ep.Turns, jsonl.UserTurn(len(ep.Turns), round, text(i*10+k+1, userLen), emotion))
			round++
		}
	}
	ep.AgentsSpoken = spoken
	first, last := trajectory[0], trajectory[len(trajectory)-1]
	ep.InitialEmotion, ep.FinalEmotion = &first, &last
	ep.EmotionTrajectory, _ = json.Marshal(trajectory)
	ep.UserBigFive = json.RawMessage(fmt.Sprintf(`{"openness":0.%d,"conscientiousness":0.5,"extraversion":0.%d,"agreeableness":0.7,"neuroticism":0.%d}`,
		1+2*(i%5), 1+2*(i/5%5), 1+2*(i/25%5)))
	if mode == results.ModeBranching {
		ep.Metadata.Extra["branch"] = json.RawMessage(`{"node":0,"parent":-1,"path":"","round_id":-1,"branch":0,"children":[1,3],"leaf":false,"node_turns":0}`)
		prompt, _ := json.Marshal([]map[string]string{{"role": "system", "content": text(i+11, promptLen)}})
		ep.Metadata.Extra["director_prompt"] = prompt
	}
	return ep
}

// writeEpisode inserts episode i with its cache rows (a Director and a
// Speaker call per agent turn, a User call per user turn) and returns its
// id and its agent turns' ids.
func writeEpisode(tx *results.Tx, i int, mode string) (int64, []int64, error) {
	ep := episode(i, mode)
	id, err := tx.InsertEpisode(ep)
	if err != nil {
		return 0, nil, err
	}
	rows, err := tx.SQL().Query(`SELECT id FROM turns WHERE episode_id = ? AND turn_type <> 'user' ORDER BY turn_idx`, id)
	if err != nil {
		return 0, nil, err
	}
	defer rows.Close()
	var turns []int64
	for rows.Next() {
		var t int64
		if err := rows.Scan(&t); err != nil {
			return 0, nil, err
		}
		turns = append(turns, t)
	}
	if err := rows.Err(); err != nil {
		return 0, nil, err
	}
	for k, t := range ep.Turns {
		if t.TurnType == "user" {
			err = cached(tx, "user", k, i*10+k, userLen)
		} else if err = cached(tx, "director", k, i*10+k, directiveLen); err == nil {
			err = cached(tx, "speaker", k, i*10+k, responseLen)
		}
		if err != nil {
			return 0, nil, err
		}
	}
	return id, turns, nil
}

// scoreOf is a score of 1..5 that varies from item to item and criterion
// to criterion without a pattern the means would cancel (a hash).
func scoreOf(seed, criterion int) float64 {
	h := uint64(seed)*0x9E3779B97F4A7C15 + uint64(criterion)*0xBF58476D1CE4E5B9
	h ^= h >> 31
	h *= 0x94D049BB133111EB
	h ^= h >> 29
	return float64(1 + h%5)
}

// agentJudgments are the per-agent judgments of one item (a turn or a
// candidate): every per-agent criterion by the judge model, with its
// rationale and the call's raw output, and pooled.
func (b *builder) agentJudgments(seed int, turnID, candidateID int64) []results.Judgment {
	raw := text(seed+3, judgeRawLen)
	var js []results.Judgment
	for c, cr := range b.rubric.Agent {
		score := scoreOf(seed, c)
		js = append(js, results.Judgment{Judge: judges[0], RubricVersion: b.rubric.Version, Criterion: cr.ID,
			Score: score, TurnID: turnID, CandidateID: candidateID, Rationale: text(seed+c, rationaleLen), Raw: raw},
			results.Judgment{Judge: judges[1], RubricVersion: b.rubric.Version, Criterion: cr.ID,
				Score: score, TurnID: turnID, CandidateID: candidateID, Rationale: "mean over judges"})
	}
	return js
}

// collective inserts the collective judgments of one episode and the
// judge call's cache row.
func (b *builder) collective(tx *results.Tx, i int, epID int64) error {
	raw := text(i+4, judgeRawLen)
	var js []results.Judgment
	for c, cr := range b.rubric.Collective {
		score := scoreOf(i*11+7, c)
		js = append(js, results.Judgment{Judge: judges[0], RubricVersion: b.rubric.Version, Criterion: cr.ID,
			Score: score, EpisodeID: epID, Rationale: text(i+c, rationaleLen), Raw: raw},
			results.Judgment{Judge: judges[1], RubricVersion: b.rubric.Version, Criterion: cr.ID,
				Score: score, EpisodeID: epID, Rationale: "mean over judges"})
	}
	if _, err := tx.InsertJudgments(js); err != nil {
		return err
	}
	return cached(tx, "judge", 0, i, judgeRawLen)
}

// evalEpisode writes evaluation episode i with its per-agent and
// collective judgments.
func (b *builder) evalEpisode(i int) error {
	var epID int64
	var turnIDs []int64
	err := b.commit("eval", "episodes", fmt.Sprintf("eval-%06d", i), func(tx *results.Tx) error {
		var err error
		epID, turnIDs, err = writeEpisode(tx, i, results.ModeEval)
		return err
	})
	if err != nil {
		return err
	}
	b.evalIDs = append(b.evalIDs, epID)
	b.evalSys = append(b.evalSys, systems[i%len(systems)])
	err = b.commit("judge_eval_agent", "judge", fmt.Sprintf("judge-agent-%06d", i), func(tx *results.Tx) error {
		var js []results.Judgment
		for k, tid := range turnIDs {
			js = append(js, b.agentJudgments(i*10+k, tid, 0)...)
			if err := cached(tx, "judge", k, i*10+k, judgeRawLen); err != nil {
				return err
			}
		}
		_, err := tx.InsertJudgments(js)
		return err
	})
	if err != nil {
		return err
	}
	return b.commit("judge_eval_collective", "judge", fmt.Sprintf("judge-coll-%06d", i), func(tx *results.Tx) error {
		return b.collective(tx, i, epID)
	})
}

// trainingEpisode writes training-time episode i of stage (independent or
// branching) with its collective judgments.
func (b *builder) trainingEpisode(stage, mode string, i int) error {
	var epID int64
	err := b.commit(stage, "episodes", fmt.Sprintf("%s-%06d", stage, i), func(tx *results.Tx) error {
		var err error
		epID, _, err = writeEpisode(tx, i, mode)
		return err
	})
	if err != nil {
		return err
	}
	return b.commit("judge_"+stage, "judge", fmt.Sprintf("judge-%s-%06d", stage, i), func(tx *results.Tx) error {
		return b.collective(tx, i, epID)
	})
}

// candidates writes candidates unit i, the judgments of its candidates
// and its preference pairs.
func (b *builder) candidates(i int) error {
	var ids []int64
	ctxID := fmt.Sprintf("train-%06d", i/Personas)
	persona := personas[i%Personas]
	err := b.commit("candidates", "candidates", fmt.Sprintf("candidates-%06d", i), func(tx *results.Tx) error {
		cs := make([]results.Candidate, CandidatesK)
		prompt := text(i, promptLen)
		for k := range cs {
			cs[k] = results.Candidate{Kind: "response", ContextID: ctxID, Persona: persona, SampleIdx: k,
				Prompt: prompt, Text: text(i*CandidatesK+k, responseLen), ModelID: "Qwen/Qwen3-8B"}
			if err := cached(tx, "speaker", k, i*CandidatesK+k, responseLen); err != nil {
				return err
			}
		}
		var err error
		ids, err = tx.InsertCandidates(cs)
		return err
	})
	if err != nil {
		return err
	}
	err = b.commit("judge_candidates", "judge", fmt.Sprintf("judge-candidates-%06d", i), func(tx *results.Tx) error {
		var js []results.Judgment
		for k, id := range ids {
			js = append(js, b.agentJudgments(i*CandidatesK+k, 0, id)...)
			if err := cached(tx, "judge", k, i*CandidatesK+k, judgeRawLen); err != nil {
				return err
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
			ps[k] = results.Pair{ContextID: ctxID, Persona: persona, ChosenID: ids[k], RejectedID: ids[(k+1+k/4)%CandidatesK],
				ChosenScore: 4, RejectedScore: 2, Margin: 2}
		}
		_, err := tx.InsertPairs(ps)
		return err
	})
}

// metrics writes the metrics stage's units, one per metric over all
// evaluation episodes: self-bleu and distinct-n (distinct_1, distinct_2).
func (b *builder) metrics() error {
	for _, m := range []struct {
		fp    string
		names []string
	}{{"metrics-self-bleu", []string{"self_bleu"}}, {"metrics-distinct-n", []string{"distinct_1", "distinct_2"}}} {
		err := b.commit("metrics_eval", "metrics", m.fp, func(tx *results.Tx) error {
			ms := make([]results.Metric, 0, len(b.evalIDs)*len(m.names))
			for k, id := range b.evalIDs {
				for j, name := range m.names {
					ms = append(ms, results.Metric{EpisodeID: id, System: b.evalSys[k], Name: name,
						Value: float64((id+int64(j)*13)%97) / 97})
				}
			}
			_, err := tx.InsertMetrics(ms)
			return err
		})
		if err != nil {
			return err
		}
	}
	return nil
}
