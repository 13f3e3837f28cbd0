package results

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
)

// inRun is the SQL condition "this row's unit belongs to run ?" for alias a.
func inRun(a string) string {
	return `EXISTS (SELECT 1 FROM run_units ru WHERE ru.run_id = ? AND ru.fingerprint = ` + a + `.unit_fp)`
}

const judgmentColumns = `j.id, j.unit_fp, COALESCE(j.run_id, ''), j.judge, j.rubric_version, j.criterion, j.agent,
	j.score, j.scale_min, j.scale_max, COALESCE(j.candidate_id, 0), COALESCE(j.turn_id, 0), COALESCE(j.episode_id, 0),
	j.rationale, j.raw, COALESCE(j.llm_call_key, '')`

func queryJudgments(ctx context.Context, db *sql.DB, query string, args ...any) ([]Judgment, error) {
	rows, err := db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("reading judgments: %w", err)
	}
	defer rows.Close()
	var out []Judgment
	for rows.Next() {
		var j Judgment
		if err := rows.Scan(&j.ID, &j.UnitFP, &j.RunID, &j.Judge, &j.RubricVersion, &j.Criterion, &j.Agent, &j.Score,
			&j.ScaleMin, &j.ScaleMax, &j.CandidateID, &j.TurnID, &j.EpisodeID, &j.Rationale, &j.Raw,
			&j.LLMCallKey); err != nil {
			return nil, fmt.Errorf("reading judgments: %w", err)
		}
		out = append(out, j)
	}
	return out, rows.Err()
}

// EpisodeView is an episode with its turns, the judgments of the episode and
// of its turns, and its metrics.
type EpisodeView struct {
	Episode   *Episode   `json:"episode"`
	Judgments []Judgment `json:"judgments"`
	Metrics   []Metric   `json:"metrics"`
}

// GetEpisodeView returns an episode with turns, judgments and metrics. With
// runID set, only judgments and metrics of that run's units are included.
func (s *Store) GetEpisodeView(ctx context.Context, id int64, runID string) (*EpisodeView, error) {
	e, err := s.GetEpisode(ctx, id)
	if err != nil {
		return nil, err
	}
	v := &EpisodeView{Episode: e}
	runJ, runM := "", ""
	args := []any{id, id}
	if runID != "" {
		runJ, runM = " AND "+inRun("j"), " AND "+inRun("m")
		args = append(args, runID)
	}
	v.Judgments, err = queryJudgments(ctx, s.r, `SELECT `+judgmentColumns+` FROM judgments j
		WHERE (j.episode_id = ? OR j.turn_id IN (SELECT id FROM turns WHERE episode_id = ?))`+runJ+
		` ORDER BY j.turn_id, j.criterion, j.judge, j.id`, args...)
	if err != nil {
		return nil, fmt.Errorf("reading judgments of episode %d: %w", id, err)
	}
	margs := []any{id}
	if runID != "" {
		margs = append(margs, runID)
	}
	v.Metrics, err = s.queryMetrics(ctx, `WHERE m.episode_id = ?`+runM+` ORDER BY m.name, m.id`, margs...)
	if err != nil {
		return nil, fmt.Errorf("reading metrics of episode %d: %w", id, err)
	}
	return v, nil
}

func (s *Store) queryMetrics(ctx context.Context, where string, args ...any) ([]Metric, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT m.id, m.unit_fp, COALESCE(m.run_id, ''), COALESCE(m.episode_id, 0),
		m.system, m.name, m.value, m.meta_json FROM metrics m `+where, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Metric
	for rows.Next() {
		var m Metric
		var meta string
		if err := rows.Scan(&m.ID, &m.UnitFP, &m.RunID, &m.EpisodeID, &m.System, &m.Name, &m.Value, &meta); err != nil {
			return nil, err
		}
		m.Meta = json.RawMessage(meta)
		out = append(out, m)
	}
	return out, rows.Err()
}

// RunMetrics returns the aggregate metrics (not tied to an episode) of a run.
func (s *Store) RunMetrics(ctx context.Context, runID string) ([]Metric, error) {
	out, err := s.queryMetrics(ctx, `WHERE m.episode_id IS NULL AND `+inRun("m")+` ORDER BY m.name, m.system`, runID)
	if err != nil {
		return nil, fmt.Errorf("reading metrics of run %s: %w", runID, err)
	}
	return out, nil
}

// CandidateScore is a candidate with the mean of its judgments (0..100) and
// the pairs it takes part in.
type CandidateScore struct {
	Candidate
	MeanScore    float64 `json:"mean_score"`
	NumJudgments int     `json:"num_judgments"`
	PairsChosen  int     `json:"pairs_chosen"`
	PairsLost    int     `json:"pairs_rejected"`
}

// Candidates returns a run's candidates (optionally of one context) with
// scores from the run's judgments and pair counts from the run's pairs.
func (s *Store) Candidates(ctx context.Context, runID, contextID string) ([]CandidateScore, error) {
	q := `SELECT c.id, c.unit_fp, COALESCE(c.run_id, ''), c.kind, c.context_id, c.persona, c.sample_idx, ` + candidatePrompt("c") + `,
		c.text, c.raw, c.model_id, c.meta_json,
		COALESCE((SELECT AVG(` + normExpr("j") + `) FROM judgments j WHERE j.candidate_id = c.id AND ` + inRun("j") + `), 0),
		(SELECT COUNT(*) FROM judgments j WHERE j.candidate_id = c.id AND ` + inRun("j") + `),
		(SELECT COUNT(*) FROM pairs p WHERE p.chosen_id = c.id AND ` + inRun("p") + `),
		(SELECT COUNT(*) FROM pairs p WHERE p.rejected_id = c.id AND ` + inRun("p") + `)
		FROM candidates c WHERE ` + inRun("c")
	args := []any{runID, runID, runID, runID, runID}
	if contextID != "" {
		q += ` AND c.context_id = ?`
		args = append(args, contextID)
	}
	q += ` ORDER BY c.context_id, c.persona, c.sample_idx, c.id`
	rows, err := s.r.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("reading candidates of run %s: %w", runID, err)
	}
	defer rows.Close()
	var out []CandidateScore
	for rows.Next() {
		var c CandidateScore
		var meta string
		if err := rows.Scan(&c.ID, &c.UnitFP, &c.RunID, &c.Kind, &c.ContextID, &c.Persona, &c.SampleIdx, &c.Prompt,
			&c.Text, &c.Raw, &c.ModelID, &meta, &c.MeanScore, &c.NumJudgments, &c.PairsChosen, &c.PairsLost); err != nil {
			return nil, fmt.Errorf("reading candidates of run %s: %w", runID, err)
		}
		c.Meta = json.RawMessage(meta)
		out = append(out, c)
	}
	return out, rows.Err()
}

// CandidateJudgments returns the judgments of one candidate.
func (s *Store) CandidateJudgments(ctx context.Context, candidateID int64) ([]Judgment, error) {
	return queryJudgments(ctx, s.r, `SELECT `+judgmentColumns+` FROM judgments j WHERE j.candidate_id = ?
		ORDER BY j.criterion, j.judge, j.id`, candidateID)
}

// normExpr is the 0..100 normalisation of a judgment score in SQL.
func normExpr(a string) string {
	return `(CASE WHEN ` + a + `.scale_max = ` + a + `.scale_min THEN ` + a + `.score
		ELSE 100.0 * (` + a + `.score - ` + a + `.scale_min) / (` + a + `.scale_max - ` + a + `.scale_min) END)`
}

// Pairs returns a run's preference pairs (optionally of one context).
func (s *Store) Pairs(ctx context.Context, runID, contextID string) ([]Pair, error) {
	q := `SELECT p.id, p.unit_fp, COALESCE(p.run_id, ''), p.context_id, p.persona, p.chosen_id, p.rejected_id,
		p.chosen_score, p.rejected_score, p.margin FROM pairs p WHERE ` + inRun("p")
	args := []any{runID}
	if contextID != "" {
		q += ` AND p.context_id = ?`
		args = append(args, contextID)
	}
	rows, err := s.r.QueryContext(ctx, q+` ORDER BY p.context_id, p.persona, p.id`, args...)
	if err != nil {
		return nil, fmt.Errorf("reading pairs of run %s: %w", runID, err)
	}
	defer rows.Close()
	var out []Pair
	for rows.Next() {
		var p Pair
		if err := rows.Scan(&p.ID, &p.UnitFP, &p.RunID, &p.ContextID, &p.Persona, &p.ChosenID, &p.RejectedID,
			&p.ChosenScore, &p.RejectedScore, &p.Margin); err != nil {
			return nil, fmt.Errorf("reading pairs of run %s: %w", runID, err)
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// TrainingCurve is the logged steps of one training unit.
type TrainingCurve struct {
	StageKey string         `json:"stage_key"`
	UnitFP   string         `json:"unit_fp"`
	Steps    []TrainingStep `json:"steps"`
}

// TrainingCurves returns a run's training curves, one per training unit,
// ordered by stage key and step: those of its committed units and those
// its running units log step by step (live curves).
func (s *Store) TrainingCurves(ctx context.Context, runID string) ([]TrainingCurve, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT ts.id, ts.unit_fp, COALESCE(ts.run_id, ''), ts.stage_key, ts.step,
		ts.epoch, ts.loss, ts.reward, ts.kl, ts.lr, ts.grad_norm, ts.values_json, ts.created_at
		FROM training_steps ts WHERE (`+inRun("ts")+` OR ts.run_id = ?) ORDER BY ts.stage_key, ts.unit_fp, ts.step`, runID, runID)
	if err != nil {
		return nil, fmt.Errorf("reading training curves of run %s: %w", runID, err)
	}
	defer rows.Close()
	var out []TrainingCurve
	for rows.Next() {
		var st TrainingStep
		var loss, reward, kl, lr, gn sql.NullFloat64
		var vals string
		var created int64
		if err := rows.Scan(&st.ID, &st.UnitFP, &st.RunID, &st.StageKey, &st.Step, &st.Epoch, &loss, &reward, &kl,
			&lr, &gn, &vals, &created); err != nil {
			return nil, fmt.Errorf("reading training curves of run %s: %w", runID, err)
		}
		st.Loss, st.Reward, st.KL, st.LR, st.GradNorm = fptr(loss), fptr(reward), fptr(kl), fptr(lr), fptr(gn)
		if vals != "{}" {
			if err := json.Unmarshal([]byte(vals), &st.Values); err != nil {
				return nil, fmt.Errorf("decoding values of step %d: %w", st.Step, err)
			}
		}
		st.Time = fromMS(created)
		if n := len(out); n == 0 || out[n-1].UnitFP != st.UnitFP {
			out = append(out, TrainingCurve{StageKey: st.StageKey, UnitFP: st.UnitFP})
		}
		out[len(out)-1].Steps = append(out[len(out)-1].Steps, st)
	}
	return out, rows.Err()
}

func fptr(v sql.NullFloat64) *float64 {
	if !v.Valid {
		return nil
	}
	f := v.Float64
	return &f
}

// Artifacts returns the files a run's units produced.
func (s *Store) Artifacts(ctx context.Context, runID string) ([]Artifact, error) {
	return s.queryArtifacts(ctx, `WHERE `+inRun("a")+` ORDER BY a.kind, a.path`, runID)
}

// UnitArtifacts returns the files the given units produced, in the order
// they were recorded (what a stage hands to the stages that read it).
func (s *Store) UnitArtifacts(ctx context.Context, fingerprints []string) ([]Artifact, error) {
	if len(fingerprints) == 0 {
		return nil, nil
	}
	arg, err := json.Marshal(fingerprints)
	if err != nil {
		return nil, fmt.Errorf("encoding fingerprints: %w", err)
	}
	return s.queryArtifacts(ctx, `WHERE a.unit_fp IN (SELECT value FROM json_each(?)) ORDER BY a.id`, string(arg))
}

func (s *Store) queryArtifacts(ctx context.Context, where string, arg any) ([]Artifact, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT a.id, a.unit_fp, COALESCE(a.run_id, ''), a.kind, a.path, a.sha256,
		a.bytes, a.meta_json FROM artifacts a `+where, arg)
	if err != nil {
		return nil, fmt.Errorf("reading artifacts: %w", err)
	}
	defer rows.Close()
	var out []Artifact
	for rows.Next() {
		var a Artifact
		var meta string
		if err := rows.Scan(&a.ID, &a.UnitFP, &a.RunID, &a.Kind, &a.Path, &a.SHA256, &a.Bytes, &meta); err != nil {
			return nil, fmt.Errorf("reading artifacts: %w", err)
		}
		a.Meta = json.RawMessage(meta)
		out = append(out, a)
	}
	return out, rows.Err()
}
