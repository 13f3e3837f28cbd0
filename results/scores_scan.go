package results

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"runtime"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/sync/errgroup"
)

// epGroups are a run's episodes grouped by (system, split), each group's
// episodes in ascending id, laid out at consecutive global positions.
type epGroups struct {
	groups []epGroup
	pos    map[int64]int32
	n      int
}

type epGroup struct {
	system, split string
	start, end    int // positions [start, end)
	ids           []int64
	keys          []string
}

// episodeGroups reads the run's episodes packed per group (one row each).
func (s *Store) episodeGroups(ctx context.Context, runID, split string) (*epGroups, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT e.system, `+split+` AS sp,
		group_concat(e.id, ',' ORDER BY e.id), group_concat(e.conv_id || '#' || e.sample_idx, char(31) ORDER BY e.id)
		FROM run_units ru JOIN episodes e ON e.unit_fp = ru.fingerprint WHERE ru.run_id = ?
		GROUP BY e.system, sp ORDER BY e.system, sp`, runID)
	if err != nil {
		return nil, fmt.Errorf("grouping episodes of run %s: %w", runID, err)
	}
	defer rows.Close()
	eg := &epGroups{pos: map[int64]int32{}}
	for rows.Next() {
		var g epGroup
		var ids, keys string
		if err := rows.Scan(&g.system, &g.split, &ids, &keys); err != nil {
			return nil, fmt.Errorf("grouping episodes of run %s: %w", runID, err)
		}
		g.keys = strings.Split(keys, "\x1f")
		g.start = eg.n
		for _, f := range strings.Split(ids, ",") {
			id, err := strconv.ParseInt(f, 10, 64)
			if err != nil {
				return nil, fmt.Errorf("grouping episodes of run %s: %w", runID, err)
			}
			g.ids = append(g.ids, id)
			eg.pos[id] = int32(eg.n)
			eg.n++
		}
		g.end = eg.n
		if len(g.keys) != len(g.ids) {
			return nil, fmt.Errorf("grouping episodes of run %s: a conv_id contains U+001F", runID)
		}
		eg.groups = append(eg.groups, g)
	}
	return eg, rows.Err()
}

// column accumulates one (level, criterion) over all positions.
type column struct {
	sum []float64
	cnt []int32
}

// valuesSQL reads (episode id, level tag || name, value) rows of the run's
// units in a fingerprint range: episode judgments ('a' with an agent, else
// 'c'), turn judgments ('a'), per-episode metrics ('m').
func valuesSQL(rng string) string {
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
func (s *Store) unitRanges(ctx context.Context, runID string, k int) ([]string, error) {
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
func (s *Store) scanValues(ctx context.Context, runID string, eg *epGroups) (map[string]*column, error) {
	bounds, err := s.unitRanges(ctx, runID, runtime.GOMAXPROCS(0))
	if err != nil {
		return nil, err
	}
	parts := make([]map[string]*column, len(bounds)+1)
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
			cols, err := s.scanRange(gctx, valuesSQL(rng), args, eg)
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

func (s *Store) scanRange(ctx context.Context, query string, args []any, eg *epGroups) (map[string]*column, error) {
	cols := map[string]*column{}
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
			c = &column{sum: make([]float64, eg.n), cnt: make([]int32, eg.n)}
			cols[string(tag)] = c
		}
		c.sum[p] += v
		c.cnt[p]++
	}
	return cols, rows.Err()
}

var levelOfTag = map[byte]string{'a': LevelAgent, 'c': LevelCollective, 'm': LevelMetric}

// assembleGroups cuts the columns into ScoreGroups, ordered by level,
// system and split.
func assembleGroups(eg *epGroups, cols map[string]*column) []ScoreGroup {
	tags := make([]string, 0, len(cols))
	for t := range cols {
		tags = append(tags, t)
	}
	sort.Strings(tags)
	var out []ScoreGroup
	for _, lv := range []byte{'a', 'c', 'm'} {
		for _, g := range eg.groups {
			sg := ScoreGroup{Level: levelOfTag[lv], System: g.system, Split: g.split, Episodes: g.ids, Keys: g.keys}
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

func anyCount(cnt []int32) bool {
	for _, c := range cnt {
		if c > 0 {
			return true
		}
	}
	return false
}

func sortCriteria(g *ScoreGroup) {
	idx := make([]int, len(g.Criteria))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return CriterionLess(g.Criteria[idx[a]], g.Criteria[idx[b]]) })
	crit := make([]string, len(idx))
	vals := make([][]float64, len(idx))
	for i, j := range idx {
		crit[i], vals[i] = g.Criteria[j], g.Values[j]
	}
	g.Criteria, g.Values = crit, vals
}
