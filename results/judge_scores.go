package results

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
)

// JudgeScore is one judge's normalised score of one judged item of a run's
// episodes: a turn, an episode for one agent, or a whole episode. The
// report reads them for its per-judge columns and inter-judge agreement.
type JudgeScore struct {
	Level     string // LevelAgent | LevelCollective
	Judge     string // the row's judge: "<judge>", or "<judge>/<model>" for one of a plugin's models
	Criterion string
	Episode   int64
	// Item names what was judged, the same for every judge of it, in a
	// form that follows the episode's content, not row ids: system, mode,
	// conv_id#sample_idx, then "t<turn_idx>" for a turn or "a:<agent>" for
	// an episode judged for one agent ("" for a whole episode), joined by
	// U+001F. With Episode it identifies the item; sorting by it orders
	// items the same way whatever order the rows were stored in.
	Item  string
	Value float64 // 100·(s−min)/(max−min)
}

// judgeScoresSQL reads the judgments of the units aliased ru (candidates
// aside), with their episode and item, normalised.
const judgeScoresSQL = `SELECT CASE WHEN j.agent = '' AND j.episode_id IS NOT NULL THEN 'c' ELSE 'a' END,
	j.judge, j.criterion, e.id,
	e.system || char(31) || e.mode || char(31) || e.conv_id || '#' || e.sample_idx || char(31) ||
		CASE WHEN j.turn_id IS NOT NULL THEN 't' || t.turn_idx WHEN j.agent <> '' THEN 'a:' || j.agent ELSE '' END,
	%s
	FROM %s JOIN judgments j ON j.unit_fp = ru.fingerprint
	LEFT JOIN turns t ON t.id = j.turn_id
	JOIN episodes e ON e.id = COALESCE(j.episode_id, t.episode_id)
	WHERE j.candidate_id IS NULL%s`

// JudgeScores returns the judgments of the run's episodes (of their turns
// and of the episodes themselves; candidates are not episodes), every
// judge's rows, in no particular order: callers group them by (Level,
// Criterion, Episode, Item). Scope.Units restricts them to those units;
// which episodes a report covers (evaluation, training) the caller decides
// through its score groups.
func (s *Store) JudgeScores(ctx context.Context, runID string, scope Scope) ([]JudgeScore, error) {
	var q string
	var arg any = runID
	if scope.Units != nil {
		b, err := json.Marshal(scope.Units)
		if err != nil {
			return nil, fmt.Errorf("encoding units: %w", err)
		}
		arg = string(b)
		q = fmt.Sprintf(judgeScoresSQL, normExpr("j"), `(SELECT value AS fingerprint FROM json_each(?1)) ru`, "")
	} else {
		q = fmt.Sprintf(judgeScoresSQL, normExpr("j"), `run_scored_units ru`, ` AND ru.run_id = ?1`)
	}
	rows, err := s.r.QueryContext(ctx, q, arg)
	if err != nil {
		return nil, fmt.Errorf("reading judge scores of run %s: %w", runID, err)
	}
	defer rows.Close()
	var out []JudgeScore
	for rows.Next() {
		var js JudgeScore
		var lv string
		if err := rows.Scan(&lv, &js.Judge, &js.Criterion, &js.Episode, &js.Item, &js.Value); err != nil {
			return nil, fmt.Errorf("reading judge scores of run %s: %w", runID, err)
		}
		js.Level = LevelAgent
		if lv == "c" {
			js.Level = LevelCollective
		}
		out = append(out, js)
	}
	return out, rows.Err()
}

// RunJudges returns the distinct judges of the judgments JudgeScores would
// read (the run's, or scope.Units'), from the units' score sums (migration
// 0014) and, for a unit without them, from its rows. It is cheap where
// JudgeScores is not: one short row per unit, not one per judgment, so
// the report reads every score only when two judges may be compared.
func (s *Store) RunJudges(ctx context.Context, runID string, scope Scope) ([]string, error) {
	if scope.Units == nil {
		// The run's report blocks keep its judges (migration 0017).
		var list sql.NullString
		err := s.r.QueryRowContext(ctx, `SELECT b.judges FROM report_block_state b
			JOIN report_stamps s ON s.run_id = b.run_id WHERE b.run_id = ? AND b.version = s.version`, runID).Scan(&list)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return nil, fmt.Errorf("reading the judges of run %s: %w", runID, err)
		}
		if list.Valid {
			return splitJudges(list.String), nil
		}
	}
	var arg any = runID
	units, where := `run_scored_units ru`, ` WHERE ru.run_id = ?1`
	if scope.Units != nil {
		b, err := json.Marshal(scope.Units)
		if err != nil {
			return nil, fmt.Errorf("encoding units: %w", err)
		}
		arg, units, where = string(b), `(SELECT value AS fingerprint FROM json_each(?1)) ru`, ""
	}
	q := `SELECT DISTINCT COALESCE(us.judges, (SELECT COALESCE(group_concat(judge, char(30)), '')
		FROM (SELECT DISTINCT j.judge FROM judgments j WHERE j.unit_fp = ru.fingerprint AND j.candidate_id IS NULL)))
		FROM ` + units + ` LEFT JOIN unit_scores us ON us.unit_fp = ru.fingerprint` + where
	rows, err := s.r.QueryContext(ctx, q, arg)
	if err != nil {
		return nil, fmt.Errorf("reading the judges of run %s: %w", runID, err)
	}
	defer rows.Close()
	seen := map[string]bool{}
	var out []string
	for rows.Next() {
		var list string
		if err := rows.Scan(&list); err != nil {
			return nil, fmt.Errorf("reading the judges of run %s: %w", runID, err)
		}
		for _, j := range strings.Split(list, "\x1e") {
			if j != "" && !seen[j] {
				seen[j] = true
				out = append(out, j)
			}
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("reading the judges of run %s: %w", runID, err)
	}
	sort.Strings(out)
	return out, nil
}
