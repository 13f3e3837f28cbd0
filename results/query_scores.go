package results

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"sync"

	"mascot.dev/mascot/experiments/prompts"
)

// Score levels of ScoreGroup.
const (
	LevelAgent      = "agent"      // per-agent criteria: judgments of turns, or of an episode for one agent
	LevelCollective = "collective" // collective criteria: judgments of a whole episode
	LevelMetric     = "metric"     // per-episode metric values (no normalisation)
)

// ScoreGroup holds the per-episode values of one (level, system, split)
// cell group of a run, in columns: Values[c][i] is criterion Criteria[c] of
// episode Episodes[i] (ascending id), NaN when that episode has none. A
// judged value is the mean over judges (and turns, or agents) of the
// normalised score 100·(s−min)/(max−min).
type ScoreGroup struct {
	Level  string `json:"level"`
	System string `json:"system"`
	Split  string `json:"split"`
	// Population is empty for evaluation episodes, else the training mode
	// of the group's episodes (ModeIndependent, ModeBranching).
	Population string      `json:"population,omitempty"`
	Criteria   []string    `json:"criteria"`
	Episodes   []int64     `json:"episodes"`
	Keys       []string    `json:"keys"` // conv_id + "#" + sample_idx, for pairing runs
	Values     [][]float64 `json:"values"`
}

// splitExpr is the SQL for the split column of episodes aliased e.
func splitExpr(splitBy string) (string, error) {
	switch splitBy {
	case "", "auto":
		return `CASE WHEN e.valence <> '' THEN e.valence WHEN e.domain <> '' THEN e.domain ELSE 'all' END`, nil
	case "valence":
		return `CASE WHEN e.valence <> '' THEN e.valence ELSE 'unknown' END`, nil
	case "domain":
		return `CASE WHEN e.domain <> '' THEN e.domain ELSE 'unknown' END`, nil
	case "none":
		return `'all'`, nil
	}
	return "", fmt.Errorf("unknown split %q (want auto, valence, domain or none)", splitBy)
}

// ScoreGroups returns the per-episode values of a run's evaluation
// episodes grouped by level, system and split (splitBy: auto = valence,
// else domain; valence; domain; none). Episodes are the run's (through
// run_units) whose mode is not a training mode (TrainingModes); values
// come from the run's judgments (of the episodes or of their turns) and
// per-episode metrics. Built for 100k-episode runs: episode lists come back
// packed per group, and the value rows are read by parallel workers over
// ranges of the run's units into dense arrays (see scores_scan.go).
func (s *Store) ScoreGroups(ctx context.Context, runID, splitBy string) ([]ScoreGroup, error) {
	return s.ScoreGroupsIn(ctx, runID, splitBy, Scope{})
}

// Scope selects what a score query covers.
type Scope struct {
	// Units, when non-nil, restricts the values (judgments and metrics) to
	// those recorded by these unit fingerprints; a group then holds only
	// the episodes with at least one value at its level, so a pipeline's
	// evaluation report does not count the episodes of its training
	// stages. Naming units includes training-time episodes they scored.
	Units []string
	// IncludeTraining adds the run's training-time episodes, in groups of
	// their own (ScoreGroup.Population), never mixed with evaluation ones.
	// A run without evaluation episodes always shows them (CoversTraining).
	IncludeTraining bool
}

// ScoreGroupsIn is ScoreGroups over the given scope.
func (s *Store) ScoreGroupsIn(ctx context.Context, runID, splitBy string, scope Scope) ([]ScoreGroup, error) {
	split, err := splitExpr(splitBy)
	if err != nil {
		return nil, err
	}
	bs, ok, err := s.currentBlocks(ctx, runID)
	if err != nil {
		return nil, err
	}
	if ok {
		in, missing := bs.covers(scope)
		covered, err := s.linkedTo(ctx, runID, missing)
		if err != nil {
			return nil, err
		}
		if covered {
			return bs.scoreGroups(splitBy, scope, in)
		}
	}
	training, err := s.CoversTraining(ctx, runID, scope)
	if err != nil {
		return nil, err
	}
	eg, err := s.episodeGroups(ctx, runID, split, training)
	if err != nil {
		return nil, err
	}
	cols, err := s.scanValues(ctx, runID, scope.Units, eg)
	if err != nil {
		return nil, err
	}
	return assembleGroups(eg, cols, scope.Units != nil), nil
}

// StageUnits returns the fingerprints of the units the run records for the
// given stage keys (through run_units), for Scope.Units. A key with no
// units is an error, so a typo does not yield an empty report.
func (s *Store) StageUnits(ctx context.Context, runID string, stageKeys []string) ([]string, error) {
	units := []string{}
	for _, k := range stageKeys {
		rows, err := s.r.QueryContext(ctx, `SELECT fingerprint FROM run_units WHERE run_id = ? AND stage_key = ?
			ORDER BY fingerprint`, runID, k)
		if err != nil {
			return nil, fmt.Errorf("reading units of stage %s: %w", k, err)
		}
		n := len(units)
		for rows.Next() {
			var fp string
			if err := rows.Scan(&fp); err != nil {
				rows.Close()
				return nil, fmt.Errorf("reading units of stage %s: %w", k, err)
			}
			units = append(units, fp)
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return nil, fmt.Errorf("reading units of stage %s: %w", k, err)
		}
		if len(units) == n {
			return nil, fmt.Errorf("run %s has no units of stage %q: %w", runID, k, ErrNotFound)
		}
	}
	return units, nil
}

// paperOrder ranks the rubric's criteria (experiments/prompts/criteria.cue)
// in the paper's order, by id and by name (canonicalised).
var paperOrder = sync.OnceValue(func() map[string]int {
	m := map[string]int{}
	for i, c := range prompts.Paper().All() {
		m[canonCriterion(c.ID)] = i + 1
		m[canonCriterion(c.Name)] = i + 1
	}
	return m
})

// CriterionLess orders criteria as the rubric lists them, which is the
// paper's order (per-agent: expressiveness, empathetic support,
// consistency, relevance, social contribution; collective: fidelity,
// originality, relevance & coherence, engagement), then others by name.
// A criterion is known by its id or its name, case- and
// punctuation-insensitively.
func CriterionLess(a, b string) bool {
	order := paperOrder()
	ka, kb := order[canonCriterion(a)], order[canonCriterion(b)]
	switch {
	case ka != 0 && kb != 0 && ka != kb:
		return ka < kb
	case ka != 0 && kb == 0:
		return true
	case ka == 0 && kb != 0:
		return false
	}
	return a < b
}

// CriterionName is the rubric's display name of a criterion id ("Empathetic
// Support Quality" for empathetic_support), or the id itself when the
// rubric has no such criterion.
func CriterionName(id string) string {
	if c, ok := prompts.Paper().Lookup(id); ok {
		return c.Name
	}
	return id
}

func canonCriterion(s string) string {
	out := make([]byte, 0, len(s))
	sep := false
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			if sep && len(out) > 0 {
				out = append(out, '_')
			}
			out, sep = append(out, byte(r)), false
		case r >= 'A' && r <= 'Z':
			if sep && len(out) > 0 {
				out = append(out, '_')
			}
			out, sep = append(out, byte(r-'A'+'a')), false
		default:
			sep = true // "Originality & Specificity" = originality_specificity
		}
	}
	return string(out)
}

// PairKey builds the key ScoreGroup.Keys holds for an episode.
func PairKey(convID string, sampleIdx int) string { return convID + "#" + strconv.Itoa(sampleIdx) }

// currentBlocks reads the run's report blocks (migration 0017); when they
// are behind and the run is not running, it rebuilds them first. ok is
// false when there are none to read (the run is running, or the database
// cannot be written): the per-unit rows are then read instead.
func (s *Store) currentBlocks(ctx context.Context, runID string) (*blockSet, bool, error) {
	bs, ok, err := s.readBlocks(ctx, runID)
	if err != nil || ok {
		return bs, ok, err
	}
	var status string
	err = s.r.QueryRowContext(ctx, `SELECT status FROM runs WHERE id = ?`, runID).Scan(&status)
	if err != nil || status == RunRunning {
		return nil, false, nil // no such run (the scan says so), or one still writing
	}
	if s.RebuildReportBlocks(ctx, runID) != nil {
		return nil, false, nil // a read-only database, say: the scan serves
	}
	return s.readBlocks(ctx, runID)
}

// linkedTo reports whether every unit of fps is linked to the run.
func (s *Store) linkedTo(ctx context.Context, runID string, fps []string) (bool, error) {
	if len(fps) == 0 {
		return true, nil
	}
	arg, err := json.Marshal(fps)
	if err != nil {
		return false, fmt.Errorf("encoding fingerprints: %w", err)
	}
	var n int
	err = s.r.QueryRowContext(ctx, `SELECT COUNT(*) FROM run_units WHERE run_id = ?
		AND fingerprint IN (SELECT value FROM json_each(?))`, runID, string(arg)).Scan(&n)
	if err != nil {
		return false, fmt.Errorf("looking up units of run %s: %w", runID, err)
	}
	return n == len(slices.Compact(slices.Sorted(slices.Values(fps)))), nil
}
