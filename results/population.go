package results

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// Episode modes (Episode.Mode): how an episode was generated.
const (
	ModeIndependent = "independent" // training: independent samples per context (group reward data)
	ModeBranching   = "branching"   // training: branching rollouts (Director GRPO prompts)
	ModeEval        = "eval"        // evaluation on the test split
	ModeImported    = "imported"    // read from a MASCOT JSONL file
)

// TrainingModes are the modes of training-time episodes: the ones a
// pipeline generates to train from. They and the conversations people had
// with a run's system (ModeChat, stored by mascot chat) are outside the
// evaluation population; every other episode (eval, imported, or a mode
// not recorded) is in it, which is what reports, comparisons and exports
// cover by default.
var TrainingModes = []string{ModeIndependent, ModeBranching}

// outsideEvaluation are the modes of the episodes outside the evaluation
// population, each reported as a population of its own when asked for.
func outsideEvaluation() []string { return append(slices.Clip(TrainingModes), ModeChat) }

// IsTrainingMode reports whether an episode of this mode is training-time.
func IsTrainingMode(mode string) bool {
	for _, m := range TrainingModes {
		if m == mode {
			return true
		}
	}
	return false
}

// PopulationEvaluation is the population label of evaluation episodes; an
// episode outside it (training-time, chat) is labelled with its mode.
const PopulationEvaluation = ""

// populationSQL is the SQL of the population label of episodes aliased a:
// empty for evaluation, else the episode's mode.
func populationSQL(a string) string {
	return `(CASE WHEN ` + a + `.mode IN (` + outsideEvaluationSQL() + `) THEN ` + a + `.mode ELSE '' END)`
}

// evaluationSQL is the SQL condition "episode a is an evaluation episode".
func evaluationSQL(a string) string {
	return a + `.mode NOT IN (` + outsideEvaluationSQL() + `)`
}

func outsideEvaluationSQL() string {
	modes := outsideEvaluation()
	q := make([]string, len(modes))
	for i, m := range modes {
		q[i] = "'" + m + "'"
	}
	return strings.Join(q, ", ")
}

// TrainingEpisodes returns the mode of each episode outside the evaluation population (training-time, chat) of a
// run, by episode id (for labelling comparisons of those episodes).
func (s *Store) TrainingEpisodes(ctx context.Context, runID string) (map[int64]string, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT e.id, e.mode FROM run_units ru JOIN episodes e ON e.unit_fp = ru.fingerprint
		WHERE ru.run_id = ? AND NOT (`+evaluationSQL("e")+`)`, runID)
	if err != nil {
		return nil, fmt.Errorf("reading training episodes of run %s: %w", runID, err)
	}
	defer rows.Close()
	out := map[int64]string{}
	for rows.Next() {
		var id int64
		var mode string
		if err := rows.Scan(&id, &mode); err != nil {
			return nil, fmt.Errorf("reading training episodes of run %s: %w", runID, err)
		}
		out[id] = mode
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("reading training episodes of run %s: %w", runID, err)
	}
	return out, nil
}

// CoversTraining reports whether a query over scope covers the run's
// training-time episodes: when asked (IncludeTraining), when restricted to
// units (they may be training units), and when the run holds no evaluation
// episode at all (a spec whose episodes stages keep the default mode,
// independent), so that such a run is reported on what it has, labelled.
func (s *Store) CoversTraining(ctx context.Context, runID string, scope Scope) (bool, error) {
	if scope.IncludeTraining || scope.Units != nil {
		return true, nil
	}
	var has bool
	err := s.r.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM run_units ru JOIN episodes e ON e.unit_fp = ru.fingerprint
		WHERE ru.run_id = ? AND `+evaluationSQL("e")+`)`, runID).Scan(&has)
	if err != nil {
		return false, fmt.Errorf("looking for evaluation episodes of run %s: %w", runID, err)
	}
	return !has, nil
}
