package results

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
)

// The typed reads stages make of their upstream stages' rows. Each takes
// the upstream unit fingerprints (what Env.Output hands a stage) and reads
// only those units' rows.

// JudgmentRow is one judgment score of a judged item (a candidate or an
// episode). The pairs stage averages them itself, exactly on the judge's
// scale (see runner/stages/pairs), so the store hands out the raw rows.
type JudgmentRow struct {
	// UnitFP is the judge unit that wrote the row.
	UnitFP string
	// ContextID is the candidate's context, or the episode's conv_id.
	ContextID string
	// Persona is the candidate's persona ("" for an episode).
	Persona string
	// ID is the candidate id or the episode id.
	ID        int64
	Criterion string
	Score     float64
}

// The reads below order rows by what they hold (unit fingerprints and
// positions), never by row ids alone: ids follow the order units
// committed in, which concurrency varies between two runs of one config,
// and a training stage that read its data in id order trained on another
// order each time (two fresh demo runs' reward models differed). A row id
// only breaks ties between rows one unit wrote, in the order it wrote them.

// JudgedCandidateRows returns the judgment rows the judge units wrote about
// candidates, ordered by judge unit, candidate (unit and sample index),
// criterion and row.
func (s *Store) JudgedCandidateRows(ctx context.Context, judgeUnits []string) ([]JudgmentRow, error) {
	return queryUnits(ctx, s.r, "reading judged candidates", judgeUnits,
		`SELECT j.unit_fp, c.context_id, c.persona, c.id, j.criterion, j.score
		FROM judgments j JOIN candidates c ON c.id = j.candidate_id
		WHERE j.unit_fp IN (SELECT value FROM json_each(?))
		ORDER BY j.unit_fp, c.unit_fp, c.sample_idx, j.criterion, j.id`,
		func(sc scanner) (JudgmentRow, error) {
			var r JudgmentRow
			return r, sc.Scan(&r.UnitFP, &r.ContextID, &r.Persona, &r.ID, &r.Criterion, &r.Score)
		})
}

// JudgedEpisodeRows returns the collective judgment rows (no agent) the
// judge units wrote about episodes, ordered by conv_id, episode (unit and
// index), judge unit, criterion and row.
func (s *Store) JudgedEpisodeRows(ctx context.Context, judgeUnits []string) ([]JudgmentRow, error) {
	return queryUnits(ctx, s.r, "reading judged episodes", judgeUnits,
		`SELECT j.unit_fp, e.conv_id, e.id, j.criterion, j.score
		FROM judgments j JOIN episodes e ON e.id = j.episode_id
		WHERE j.unit_fp IN (SELECT value FROM json_each(?)) AND j.agent = ''
		ORDER BY e.conv_id, e.unit_fp, e.idx, j.unit_fp, j.criterion, j.id`,
		func(sc scanner) (JudgmentRow, error) {
			var r JudgmentRow
			return r, sc.Scan(&r.UnitFP, &r.ContextID, &r.ID, &r.Criterion, &r.Score)
		})
}

// CandidateText is a candidate's id, unit, context, persona and text.
type CandidateText struct {
	ID                               int64
	UnitFP, ContextID, Persona, Text string
}

// CandidateTexts returns the candidates of the units, ordered by unit,
// sample index and id.
func (s *Store) CandidateTexts(ctx context.Context, units []string) ([]CandidateText, error) {
	return queryUnits(ctx, s.r, "reading candidates", units, candidateTextsSQL,
		func(sc scanner) (CandidateText, error) {
			var c CandidateText
			return c, sc.Scan(&c.ID, &c.UnitFP, &c.ContextID, &c.Persona, &c.Text)
		})
}

// CandidatePrompts returns the distinct non-empty prompts of the units'
// candidates, sorted.
func (s *Store) CandidatePrompts(ctx context.Context, units []string) ([]string, error) {
	return queryUnits(ctx, s.r, "reading candidate prompts", units, candidatePromptsSQL, scanString)
}

// The candidates of units are found by the units' numbers (migration 0019).
var (
	candidateTextsSQL = `SELECT id, unit_fp, context_id, persona, text FROM candidates
		WHERE unit_no IN ` + unitNosOf(`SELECT value FROM json_each(?)`) + ` ORDER BY unit_fp, sample_idx, id`
	candidatePromptsSQL = `SELECT DISTINCT ` + candidatePrompt("c") + ` AS p FROM candidates c
		WHERE c.unit_no IN ` + unitNosOf(`SELECT value FROM json_each(?)`) + ` AND p <> '' ORDER BY p`
)

// DirectorPrompts returns the distinct Director prompts stored in the
// metadata of the units' episodes (metadata director_prompt), sorted.
func (s *Store) DirectorPrompts(ctx context.Context, units []string) ([]string, error) {
	return queryUnits(ctx, s.r, "reading director prompts", units, `SELECT DISTINCT
		json_extract(metadata_json, '$.director_prompt') AS p FROM episodes
		WHERE unit_fp IN (SELECT value FROM json_each(?)) AND p IS NOT NULL ORDER BY p`, scanString)
}

// PairText is a preference pair with the prompt of its chosen candidate
// and the texts of both candidates, with the query (context and persona)
// the pair belongs to.
type PairText struct {
	ContextID, Persona       string
	Prompt, Chosen, Rejected string
	Margin                   float64
}

// PairTexts returns the pairs of the units, ordered by pair unit, chosen
// candidate and rejected candidate (each by unit and sample index).
func (s *Store) PairTexts(ctx context.Context, units []string) ([]PairText, error) {
	return queryUnits(ctx, s.r, "reading pairs", units, `SELECT p.context_id, p.persona, `+candidatePrompt("c")+`, c.text, r.text, p.margin
		FROM pairs p JOIN candidates c ON c.id = p.chosen_id JOIN candidates r ON r.id = p.rejected_id
		WHERE p.unit_fp IN (SELECT value FROM json_each(?))
		ORDER BY p.unit_fp, c.unit_fp, c.sample_idx, r.unit_fp, r.sample_idx`,
		func(sc scanner) (PairText, error) {
			var p PairText
			return p, sc.Scan(&p.ContextID, &p.Persona, &p.Prompt, &p.Chosen, &p.Rejected, &p.Margin)
		})
}

// scanner is a *sql.Row or *sql.Rows.
type scanner interface{ Scan(...any) error }

func scanString(sc scanner) (string, error) {
	var v string
	return v, sc.Scan(&v)
}

// queryUnits runs query with the units as its one parameter (a JSON array,
// for `IN (SELECT value FROM json_each(?))`) and scans every row.
func queryUnits[T any](ctx context.Context, db *sql.DB, what string, units []string, query string, scan func(scanner) (T, error)) ([]T, error) {
	if len(units) == 0 {
		return nil, nil
	}
	arg, err := json.Marshal(units)
	if err != nil {
		return nil, fmt.Errorf("%s: encoding fingerprints: %w", what, err)
	}
	rows, err := db.QueryContext(ctx, query, string(arg))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return out, nil
}
