package results

import (
	"encoding/json"
	"fmt"
)

const insertCandidateSQL = `INSERT INTO candidates (unit_fp, unit_no, run_id, kind, context_id, persona, sample_idx,
	prompt, text, raw, model_id, meta_json, created_at) VALUES (?, ` + unitNoOf + `, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`

// InsertCandidate inserts one candidate and returns its id.
func (t *Tx) InsertCandidate(c Candidate) (int64, error) {
	fp := t.fp(c.UnitFP)
	id, err := t.insert(insertCandidateSQL, fp, fp, t.run(c.RunID), orDefault(c.Kind, "response"),
		c.ContextID, c.Persona, c.SampleIdx, c.Prompt, c.Text, c.Raw, c.ModelID, jsonOr(c.Meta, "{}"), nowMS())
	if err != nil {
		return 0, fmt.Errorf("inserting candidate %s/%d: %w", c.ContextID, c.SampleIdx, err)
	}
	return id, nil
}

func insertAll[T any](items []T, one func(T) (int64, error)) ([]int64, error) {
	ids := make([]int64, len(items))
	for i, it := range items {
		id, err := one(it)
		if err != nil {
			return nil, err
		}
		ids[i] = id
	}
	return ids, nil
}

const insertJudgmentSQL = `INSERT INTO judgments (unit_fp, run_id, judge, rubric_version, criterion, agent,
	score, scale_min, scale_max, candidate_id, turn_id, episode_id, rationale, raw, llm_call_key, created_at)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`

// InsertJudgment inserts one judgment; exactly one of CandidateID, TurnID
// and EpisodeID must be set. A zero scale means 1..5.
func (t *Tx) InsertJudgment(j Judgment) (int64, error) {
	if j.ScaleMin == 0 && j.ScaleMax == 0 {
		j.ScaleMin, j.ScaleMax = 1, 5
	}
	t.values = true
	id, err := t.insert(insertJudgmentSQL, t.fp(j.UnitFP), t.run(j.RunID), j.Judge, j.RubricVersion, j.Criterion,
		j.Agent, j.Score, j.ScaleMin, j.ScaleMax, nullID(j.CandidateID), nullID(j.TurnID), nullID(j.EpisodeID),
		j.Rationale, j.Raw, nullString(j.LLMCallKey), nowMS())
	if err != nil {
		return 0, fmt.Errorf("inserting judgment %s by %s: %w", j.Criterion, j.Judge, err)
	}
	return id, nil
}

// InsertJudgments inserts judgments and returns their ids.
func (t *Tx) InsertJudgments(js []Judgment) ([]int64, error) {
	return insertAll(js, t.InsertJudgment)
}

const insertComparisonSQL = `INSERT INTO comparisons (unit_fp, run_id, judge, criterion, context_id,
	systems_json, episodes_json, choice, rationale, raw, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`

// InsertComparison inserts one pairwise or three-way judgment.
func (t *Tx) InsertComparison(c Comparison) (int64, error) {
	if err := checkChoice(c.Systems, c.Choice); err != nil {
		return 0, fmt.Errorf("inserting comparison %s: %w", c.ContextID, err)
	}
	sys, _ := mustJSON(c.Systems, "[]")
	eps, _ := mustJSON(c.EpisodeIDs, "[]")
	id, err := t.insert(insertComparisonSQL, t.fp(c.UnitFP), t.run(c.RunID), c.Judge, c.Criterion, c.ContextID,
		sys, eps, c.Choice, c.Rationale, c.Raw, nowMS())
	if err != nil {
		return 0, fmt.Errorf("inserting comparison %s: %w", c.ContextID, err)
	}
	return id, nil
}

// InsertComparisons inserts comparisons and returns their ids.
func (t *Tx) InsertComparisons(cs []Comparison) ([]int64, error) {
	return insertAll(cs, t.InsertComparison)
}

func checkChoice(systems []string, choice string) error {
	if len(systems) < 2 {
		return fmt.Errorf("want at least two systems shown, got %d", len(systems))
	}
	if choice == Tie {
		return nil
	}
	for _, s := range systems {
		if s == choice {
			return nil
		}
	}
	return fmt.Errorf("choice %q is neither a system shown %v nor %q", choice, systems, Tie)
}

const insertMetricSQL = `INSERT INTO metrics (unit_fp, run_id, episode_id, system, name, value, meta_json, created_at)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?)`

// InsertMetric inserts one metric value.
func (t *Tx) InsertMetric(m Metric) (int64, error) {
	t.values = true
	id, err := t.insert(insertMetricSQL, t.fp(m.UnitFP), t.run(m.RunID), nullID(m.EpisodeID), m.System, m.Name,
		m.Value, jsonOr(m.Meta, "{}"), nowMS())
	if err != nil {
		return 0, fmt.Errorf("inserting metric %s: %w", m.Name, err)
	}
	return id, nil
}

// InsertMetrics inserts metric values and returns their ids.
func (t *Tx) InsertMetrics(ms []Metric) ([]int64, error) {
	return insertAll(ms, t.InsertMetric)
}

const insertPairSQL = `INSERT INTO pairs (unit_fp, run_id, context_id, persona, chosen_id, rejected_id,
	chosen_score, rejected_score, margin, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`

// InsertPair inserts one preference pair between two stored candidates.
func (t *Tx) InsertPair(p Pair) (int64, error) {
	id, err := t.insert(insertPairSQL, t.fp(p.UnitFP), t.run(p.RunID), p.ContextID, p.Persona, p.ChosenID,
		p.RejectedID, p.ChosenScore, p.RejectedScore, p.Margin, nowMS())
	if err != nil {
		return 0, fmt.Errorf("inserting pair %d>%d: %w", p.ChosenID, p.RejectedID, err)
	}
	return id, nil
}

// InsertPairs inserts pairs and returns their ids.
func (t *Tx) InsertPairs(ps []Pair) ([]int64, error) {
	return insertAll(ps, t.InsertPair)
}

const insertStepSQL = `INSERT INTO training_steps (unit_fp, run_id, stage_key, step, epoch, loss, reward, kl, lr,
	grad_norm, values_json, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
	ON CONFLICT (unit_fp, step) DO UPDATE SET epoch = excluded.epoch, loss = excluded.loss,
	reward = excluded.reward, kl = excluded.kl, lr = excluded.lr, grad_norm = excluded.grad_norm,
	values_json = excluded.values_json, created_at = excluded.created_at`

// InsertTrainingStep records one training step; a step logged again for the
// same unit (a resumed training run) replaces the old values.
func (t *Tx) InsertTrainingStep(st TrainingStep) (int64, error) {
	vals, err := mustJSON(st.Values, "{}")
	if err != nil {
		return 0, fmt.Errorf("encoding values of step %d: %w", st.Step, err)
	}
	stage := st.StageKey
	if stage == "" {
		stage = t.unit.StageKey
	}
	id, err := t.insert(insertStepSQL, t.fp(st.UnitFP), t.run(st.RunID), stage, st.Step, st.Epoch, st.Loss,
		st.Reward, st.KL, st.LR, st.GradNorm, vals, toMS(st.Time))
	if err != nil {
		return 0, fmt.Errorf("inserting training step %d: %w", st.Step, err)
	}
	return id, nil
}

// InsertTrainingSteps records training steps.
func (t *Tx) InsertTrainingSteps(sts []TrainingStep) ([]int64, error) {
	return insertAll(sts, t.InsertTrainingStep)
}

const insertArtifactSQL = `INSERT INTO artifacts (unit_fp, run_id, kind, path, sha256, bytes, meta_json, created_at)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?)
	ON CONFLICT (unit_fp, path) DO UPDATE SET kind = excluded.kind, sha256 = excluded.sha256,
	bytes = excluded.bytes, meta_json = excluded.meta_json`

// InsertArtifact records a file the unit produced (path + sha256).
func (t *Tx) InsertArtifact(a Artifact) (int64, error) {
	if a.Path == "" || a.SHA256 == "" {
		return 0, fmt.Errorf("inserting artifact %q: path and sha256 are required", a.Path)
	}
	id, err := t.insert(insertArtifactSQL, t.fp(a.UnitFP), t.run(a.RunID), a.Kind, a.Path, a.SHA256, a.Bytes,
		jsonOr(a.Meta, "{}"), nowMS())
	if err != nil {
		return 0, fmt.Errorf("inserting artifact %s: %w", a.Path, err)
	}
	return id, nil
}

// PutLLMCall records an LLM call in the trace, linked to the unit. A call
// with a Key replaces the cache row of that key (keeping the response the
// cache holds when c.Response is empty).
func (t *Tx) PutLLMCall(c LLMCall) error {
	if c.UnitFP == "" {
		c.UnitFP = t.unit.Fingerprint
	}
	if c.RunID == "" {
		c.RunID = t.unit.RunID
	}
	return putLLMCall(t.ctx, t.tx, c)
}

// scrubRequest removes credentials from a request JSON object, at any depth.
func scrubRequest(raw json.RawMessage) (string, error) {
	if len(raw) == 0 {
		return "{}", nil
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return "", fmt.Errorf("decoding request JSON: %w", err)
	}
	b, err := json.Marshal(scrub(v))
	if err != nil {
		return "", err
	}
	return string(b), nil
}

var secretKeys = map[string]bool{
	"api_key": true, "apikey": true, "authorization": true, "Authorization": true,
	"api-key": true, "x-api-key": true, "token": true, "access_token": true, "APIKey": true,
}

func scrub(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, val := range x {
			if secretKeys[k] {
				delete(x, k)
				continue
			}
			x[k] = scrub(val)
		}
	case []any:
		for i := range x {
			x[i] = scrub(x[i])
		}
	}
	return v
}
