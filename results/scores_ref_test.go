package results

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"runtime"
	"sort"

	"golang.org/x/sync/errgroup"
)

// This file keeps the report scan as it was before the raw-driver rewrite
// (one (episode, tag, normalised value) row per judgment through
// database/sql), as the reference the faster scan is checked against.

// refScoreGroups is ScoreGroups computed the old way (no unit scope).
func (s *Store) refScoreGroups(ctx context.Context, runID, splitBy string) ([]ScoreGroup, error) {
	split, err := splitExpr(splitBy)
	if err != nil {
		return nil, err
	}
	eg, err := s.refEpisodeGroups(ctx, runID, split, false)
	if err != nil {
		return nil, err
	}
	cols, err := s.refScanValues(ctx, runID, eg)
	if err != nil {
		return nil, err
	}
	return refAssembleGroups(eg, cols), nil
}

// column accumulates one (level, criterion) over all positions.
type refColumn struct {
	sum []float64
	cnt []int32
}

// valuesSQL reads (episode id, level tag || name, value) rows of the run's
// units in a fingerprint range: episode judgments ('a' with an agent, else
// 'c'), turn judgments ('a'), per-episode metrics ('m').
func refValuesSQL(rng string) string {
	return `SELECT COALESCE(j.episode_id, t.episode_id),
		CASE WHEN j.agent = '' AND j.episode_id IS NOT NULL THEN 'c' ELSE 'a' END || j.criterion, ` + normExpr("j") + `
		FROM run_units ru JOIN judgments j ON j.unit_fp = ru.fingerprint LEFT JOIN turns t ON t.id = j.turn_id
		WHERE ru.run_id = ?1 AND j.candidate_id IS NULL` + rng + `
	UNION ALL
	SELECT m.episode_id, 'm' || m.name, m.value
		FROM run_units ru JOIN metrics m ON m.unit_fp = ru.fingerprint
		WHERE ru.run_id = ?1 AND m.episode_id IS NOT NULL` + rng
}

// unitRanges splits the run's units into k fingerprint ranges of similar
// size; it returns the k−1 inner bounds.
func (s *Store) refUnitRanges(ctx context.Context, runID string, k int) ([]string, error) {
	var n int
	if err := s.r.QueryRowContext(ctx, `SELECT COUNT(*) FROM run_units WHERE run_id = ?`, runID).Scan(&n); err != nil {
		return nil, fmt.Errorf("counting units of run %s: %w", runID, err)
	}
	k = max(1, min(k, n/500))
	var bounds []string
	for i := 1; i < k; i++ {
		var fp string
		err := s.r.QueryRowContext(ctx, `SELECT fingerprint FROM run_units WHERE run_id = ? ORDER BY fingerprint
			LIMIT 1 OFFSET ?`, runID, i*n/k).Scan(&fp)
		if err != nil {
			return nil, fmt.Errorf("splitting units of run %s: %w", runID, err)
		}
		bounds = append(bounds, fp)
	}
	return bounds, nil
}

// scanValues reads every value row of the run in parallel ranges and sums
// them per (tag, position).
func (s *Store) refScanValues(ctx context.Context, runID string, eg *epGroups) (map[string]*refColumn, error) {
	bounds, err := s.refUnitRanges(ctx, runID, runtime.GOMAXPROCS(0))
	if err != nil {
		return nil, err
	}
	parts := make([]map[string]*refColumn, len(bounds)+1)
	g, gctx := errgroup.WithContext(ctx)
	for w := range parts {
		var rng string
		args := []any{runID}
		if w > 0 {
			rng += ` AND ru.fingerprint >= ?2`
			args = append(args, bounds[w-1])
		} else {
			args = append(args, nil)
		}
		if w < len(bounds) {
			rng += ` AND ru.fingerprint < ?3`
			args = append(args, bounds[w])
		}
		g.Go(func() error {
			cols, err := s.refScanRange(gctx, refValuesSQL(rng), args, eg)
			parts[w] = cols
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, fmt.Errorf("reading scores of run %s: %w", runID, err)
	}
	out := parts[0]
	for _, p := range parts[1:] {
		for tag, c := range p {
			dst, ok := out[tag]
			if !ok {
				out[tag] = c
				continue
			}
			for i := range c.sum {
				dst.sum[i] += c.sum[i]
				dst.cnt[i] += c.cnt[i]
			}
		}
	}
	return out, nil
}

func (s *Store) refScanRange(ctx context.Context, query string, args []any, eg *epGroups) (map[string]*refColumn, error) {
	cols := map[string]*refColumn{}
	rows, err := s.r.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var eid int64
	var tag sql.RawBytes
	var v float64
	for rows.Next() {
		if err := rows.Scan(&eid, &tag, &v); err != nil {
			return nil, err
		}
		p, ok := eg.pos[eid]
		if !ok {
			continue // an episode outside the run
		}
		c, ok := cols[string(tag)]
		if !ok {
			c = &refColumn{sum: make([]float64, eg.n), cnt: make([]int32, eg.n)}
			cols[string(tag)] = c
		}
		c.sum[p] += v
		c.cnt[p]++
	}
	return cols, rows.Err()
}

var refLevelOfTag = map[byte]string{'a': LevelAgent, 'c': LevelCollective, 'm': LevelMetric}

// assembleGroups cuts the columns into ScoreGroups, ordered by level,
// system and split.
func refAssembleGroups(eg *epGroups, cols map[string]*refColumn) []ScoreGroup {
	tags := make([]string, 0, len(cols))
	for t := range cols {
		tags = append(tags, t)
	}
	sort.Strings(tags)
	var out []ScoreGroup
	for _, lv := range []byte{'a', 'c', 'm'} {
		for _, g := range eg.groups {
			sg := ScoreGroup{Level: refLevelOfTag[lv], System: g.system, Split: g.split, Episodes: g.ids, Keys: g.keys}
			for _, t := range tags {
				if t[0] != lv || !anyCount(cols[t].cnt[g.start:g.end]) {
					continue
				}
				c := cols[t]
				vals := make([]float64, g.end-g.start)
				for i := range vals {
					vals[i] = math.NaN()
					if n := c.cnt[g.start+i]; n > 0 {
						vals[i] = c.sum[g.start+i] / float64(n)
					}
				}
				sg.Criteria = append(sg.Criteria, t[1:])
				sg.Values = append(sg.Values, vals)
			}
			if len(sg.Criteria) == 0 {
				continue
			}
			sortCriteria(&sg)
			out = append(out, sg)
		}
	}
	return out
}
