package results

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
)

// Arm is one side of a cross-run rating: the episodes of one system in one
// run.
type Arm struct {
	RunID  string `json:"run_id"`
	System string `json:"system"`
}

// Label is how a cross-run rating names the arm in its systems list:
// "RUN:SYSTEM".
func (a Arm) Label() string { return a.RunID + ":" + a.System }

// ParseArm reads "RUN" or "RUN:SYSTEM" (run ids hold no colon).
func ParseArm(s string) Arm {
	run, sys, _ := strings.Cut(s, ":")
	return Arm{RunID: run, System: sys}
}

// ArmEpisodes is an arm with how many rateable episodes it has.
type ArmEpisodes struct {
	Arm
	RunName  string `json:"run_name"`
	Episodes int    `json:"episodes"`
}

// rateable are the episodes a rater compares: finished conversations, not
// the nodes of a branching tree nor live chats.
const rateable = `e.mode NOT IN ('branching', 'chat')`

// RateableArms lists the (run, system) arms of the newest runs that have
// rateable episodes, newest run first.
func (s *Store) RateableArms(ctx context.Context, limit int) ([]ArmEpisodes, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT r.id, r.name, e.system, COUNT(*) FROM runs r
		JOIN run_units ru ON ru.run_id = r.id JOIN episodes e ON e.unit_fp = ru.fingerprint
		WHERE r.id IN (SELECT id FROM runs ORDER BY started_at DESC LIMIT ?) AND `+rateable+`
		GROUP BY r.id, e.system ORDER BY r.started_at DESC, r.id, e.system`, limit)
	if err != nil {
		return nil, fmt.Errorf("listing rateable runs: %w", err)
	}
	defer rows.Close()
	var out []ArmEpisodes
	for rows.Next() {
		var a ArmEpisodes
		if err := rows.Scan(&a.RunID, &a.RunName, &a.System, &a.Episodes); err != nil {
			return nil, fmt.Errorf("listing rateable runs: %w", err)
		}
		out = append(out, a)
	}
	return out, rows.Err()
}

// ArmEpisode returns the episode an arm shows for a context: of its
// rateable episodes (evaluation episodes when it has any), the one with
// the lowest sample index. ok is false when the arm has none.
func (s *Store) ArmEpisode(ctx context.Context, a Arm, convID string) (id int64, ok bool, err error) {
	rows, err := s.r.QueryContext(ctx, `SELECT e.id FROM episodes e JOIN run_units ru ON ru.fingerprint = e.unit_fp
		WHERE ru.run_id = ? AND e.system = ? AND e.conv_id = ? AND `+rateable+`
		ORDER BY e.mode <> 'eval', e.sample_idx, e.id LIMIT 1`, a.RunID, a.System, convID)
	if err != nil {
		return 0, false, fmt.Errorf("reading episodes of %s: %w", a.Label(), err)
	}
	defer rows.Close()
	if rows.Next() {
		if err := rows.Scan(&id); err != nil {
			return 0, false, fmt.Errorf("reading episodes of %s: %w", a.Label(), err)
		}
		ok = true
	}
	return id, ok, rows.Err()
}

// SharedContexts lists the contexts (conv ids) for which at least two of
// the arms have a rateable episode, in conv_id order.
func (s *Store) SharedContexts(ctx context.Context, arms []Arm) ([]string, error) {
	b, err := json.Marshal(arms)
	if err != nil {
		return nil, fmt.Errorf("encoding arms: %w", err)
	}
	rows, err := s.r.QueryContext(ctx, `SELECT e.conv_id FROM episodes e JOIN run_units ru ON ru.fingerprint = e.unit_fp
		JOIN json_each(?) a ON ru.run_id = a.value->>'run_id' AND e.system = a.value->>'system'
		WHERE `+rateable+` GROUP BY e.conv_id HAVING COUNT(DISTINCT a.key) >= 2 ORDER BY e.conv_id`, string(b))
	if err != nil {
		return nil, fmt.Errorf("finding contexts shared by %d arms: %w", len(arms), err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var c string
		if err := rows.Scan(&c); err != nil {
			return nil, fmt.Errorf("finding shared contexts: %w", err)
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// CrossRunPreferences returns the cross-run ratings that showed an episode
// of any of the given runs (nil = every cross-run rating).
func (s *Store) CrossRunPreferences(ctx context.Context, runIDs []string) ([]HumanPreference, error) {
	q := `SELECT ` + prefColumns + ` FROM human_preferences WHERE runs_json <> '[]'`
	var args []any
	if runIDs != nil {
		b, err := json.Marshal(runIDs)
		if err != nil {
			return nil, fmt.Errorf("encoding run ids: %w", err)
		}
		q += ` AND EXISTS (SELECT 1 FROM json_each(runs_json) r WHERE r.value IN (SELECT value FROM json_each(?)))`
		args = append(args, string(b))
	}
	return s.queryPreferences(ctx, q+` ORDER BY id`, args...)
}

// EpisodeCriterionScores returns, per criterion, the mean of the judges'
// normalised scores (Judgment.Normalized, 0..100) of an episode, over its
// episode-level judgments, collective and per-agent alike.
func (s *Store) EpisodeCriterionScores(ctx context.Context, episodeID int64) (map[string]float64, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT criterion, score, scale_min, scale_max FROM judgments
		WHERE episode_id = ?`, episodeID)
	if err != nil {
		return nil, fmt.Errorf("reading judgments of episode %d: %w", episodeID, err)
	}
	defer rows.Close()
	sum, n := map[string]float64{}, map[string]int{}
	for rows.Next() {
		var j Judgment
		if err := rows.Scan(&j.Criterion, &j.Score, &j.ScaleMin, &j.ScaleMax); err != nil {
			return nil, fmt.Errorf("reading judgments of episode %d: %w", episodeID, err)
		}
		sum[j.Criterion] += j.Normalized()
		n[j.Criterion]++
	}
	for c := range sum {
		sum[c] /= float64(n[c])
	}
	return sum, rows.Err()
}
