package results

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strconv"
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
	Level    string      `json:"level"`
	System   string      `json:"system"`
	Split    string      `json:"split"`
	Criteria []string    `json:"criteria"`
	Episodes []int64     `json:"episodes"`
	Keys     []string    `json:"keys"` // conv_id + "#" + sample_idx, for pairing runs
	Values   [][]float64 `json:"values"`
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

// ScoreGroups aggregates a run's judgments and per-episode metrics per
// episode and criterion in SQL, and returns them grouped by level, system
// and split (splitBy: auto = valence, else domain; valence; domain; none).
func (s *Store) ScoreGroups(ctx context.Context, runID, splitBy string) ([]ScoreGroup, error) {
	split, err := splitExpr(splitBy)
	if err != nil {
		return nil, err
	}
	q := `WITH ep AS (
		SELECT e.id, e.system, ` + split + ` AS split, e.conv_id || '#' || e.sample_idx AS k
		FROM run_units ru JOIN episodes e ON e.unit_fp = ru.fingerprint WHERE ru.run_id = ?1),
	ju AS (SELECT ru.fingerprint FROM run_units ru WHERE ru.run_id = ?1),
	x AS (
		SELECT 'agent' AS level, t.episode_id AS eid, j.criterion AS name, ` + normExpr("j") + ` AS v
		FROM ju JOIN judgments j ON j.unit_fp = ju.fingerprint JOIN turns t ON t.id = j.turn_id
		UNION ALL
		SELECT CASE WHEN j.agent = '' THEN 'collective' ELSE 'agent' END, j.episode_id, j.criterion, ` + normExpr("j") + `
		FROM ju JOIN judgments j ON j.unit_fp = ju.fingerprint WHERE j.episode_id IS NOT NULL
		UNION ALL
		SELECT 'metric', m.episode_id, m.name, m.value
		FROM ju JOIN metrics m ON m.unit_fp = ju.fingerprint WHERE m.episode_id IS NOT NULL)
	SELECT x.level, ep.system, ep.split, x.name, ep.id, ep.k, AVG(x.v)
	FROM x JOIN ep ON ep.id = x.eid
	GROUP BY x.level, ep.system, ep.split, ep.id, x.name
	ORDER BY x.level, ep.system, ep.split, ep.id`
	rows, err := s.r.QueryContext(ctx, q, runID)
	if err != nil {
		return nil, fmt.Errorf("aggregating scores of run %s: %w", runID, err)
	}
	defer rows.Close()
	var groups []ScoreGroup
	var cur *groupBuilder
	var level, system, sp, name, key string
	var eid int64
	var v float64
	for rows.Next() {
		if err := rows.Scan(&level, &system, &sp, &name, &eid, &key, &v); err != nil {
			return nil, fmt.Errorf("aggregating scores of run %s: %w", runID, err)
		}
		if cur == nil || cur.level != level || cur.system != system || cur.split != sp {
			if cur != nil {
				groups = append(groups, cur.build())
			}
			cur = &groupBuilder{level: level, system: system, split: sp, col: map[string]int{}}
		}
		cur.add(eid, key, name, v)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("aggregating scores of run %s: %w", runID, err)
	}
	if cur != nil {
		groups = append(groups, cur.build())
	}
	return groups, nil
}

// groupBuilder collects rows of one group (ordered by episode id).
type groupBuilder struct {
	level, system, split string
	col                  map[string]int
	names                []string
	eps                  []int64
	keys                 []string
	vals                 [][]float64 // [episode][column in first-seen order]
}

func (g *groupBuilder) add(eid int64, key, name string, v float64) {
	if n := len(g.eps); n == 0 || g.eps[n-1] != eid {
		g.eps = append(g.eps, eid)
		g.keys = append(g.keys, key)
		g.vals = append(g.vals, nil)
	}
	c, ok := g.col[name]
	if !ok {
		c = len(g.names)
		g.col[name] = c
		g.names = append(g.names, name)
	}
	row := g.vals[len(g.vals)-1]
	for len(row) <= c {
		row = append(row, math.NaN())
	}
	row[c] = v
	g.vals[len(g.vals)-1] = row
}

func (g *groupBuilder) build() ScoreGroup {
	order := make([]int, len(g.names))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool { return CriterionLess(g.names[order[a]], g.names[order[b]]) })
	out := ScoreGroup{Level: g.level, System: g.system, Split: g.split, Episodes: g.eps, Keys: g.keys}
	out.Criteria = make([]string, len(order))
	out.Values = make([][]float64, len(order))
	for ci, src := range order {
		out.Criteria[ci] = g.names[src]
		col := make([]float64, len(g.eps))
		for i, row := range g.vals {
			if src < len(row) {
				col[i] = row[src]
			} else {
				col[i] = math.NaN()
			}
		}
		out.Values[ci] = col
	}
	return out
}

// paperOrder is the order of the paper's criteria in its tables.
var paperOrder = map[string]int{}

func init() {
	for i, c := range []string{
		"emotional_expressiveness", "empathetic_support_quality", "consistency", "response_relevance",
		"social_contribution", "fidelity", "originality_specificity", "relevance_coherence", "engagement_contribution",
	} {
		paperOrder[c] = i + 1
	}
}

// CriterionLess orders criteria as the paper's tables do (per-agent:
// expressiveness, empathy, consistency, relevance, contribution; collective:
// fidelity, originality, relevance & coherence, engagement), then others by
// name. Names compare case- and punctuation-insensitively.
func CriterionLess(a, b string) bool {
	ka, kb := paperOrder[canonCriterion(a)], paperOrder[canonCriterion(b)]
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
		case r == '&':
			// "Originality & Specificity" = originality_specificity
			sep = true
		default:
			sep = true
		}
	}
	return string(out)
}

// PairKey builds the key ScoreGroup.Keys holds for an episode.
func PairKey(convID string, sampleIdx int) string { return convID + "#" + strconv.Itoa(sampleIdx) }
