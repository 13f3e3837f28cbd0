package results

import (
	"cmp"
	"context"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/sync/errgroup"
)

// episodeGroups reads the run's episodes packed per group (one row each):
// its evaluation episodes, and with training its training-time episodes in
// groups of their own. Workers, one per core, each read a fingerprint range
// of the run's units (run_units); a group's lists from the ranges are then
// merged by episode id, so the groups are those one query over all units
// returns. The ranges split the units of the run's stages with episodes
// (episodeUnitsSQL), so that each worker gets a share of the episodes.
func (s *Store) episodeGroups(ctx context.Context, runID, split string, training bool) (*epGroups, error) {
	bounds, err := s.fingerprintBounds(ctx, episodeUnitsCountSQL, episodeUnitsSQL, runID, runtime.GOMAXPROCS(0))
	if err != nil {
		return nil, fmt.Errorf("grouping episodes of run %s: %w", runID, err)
	}
	only := ` AND ` + evaluationSQL("e")
	if training {
		only = ``
	}
	parts := make([][]epGroup, len(bounds)+1)
	g, gctx := errgroup.WithContext(ctx)
	for w := range parts {
		rng := ``
		args := []any{runID, nil, nil}
		if w > 0 {
			rng += ` AND ru.fingerprint >= ?2`
			args[1] = bounds[w-1]
		}
		if w < len(bounds) {
			rng += ` AND ru.fingerprint < ?3`
			args[2] = bounds[w]
		}
		query := `SELECT e.system, ` + split + ` AS sp, ` + populationSQL("e") + ` AS pop,
			group_concat(e.id, ',' ORDER BY e.id), group_concat(e.conv_id || '#' || e.sample_idx, char(31) ORDER BY e.id)
			FROM run_units ru JOIN episodes e ON e.unit_fp = ru.fingerprint WHERE ru.run_id = ?1` + rng + only + `
			GROUP BY e.system, sp, pop`
		g.Go(func() error {
			var err error
			parts[w], err = s.groupRange(gctx, query, args)
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, fmt.Errorf("grouping episodes of run %s: %w", runID, err)
	}
	return mergeEpisodeGroups(parts), nil
}

// episodeUnitsSQL selects, for fingerprintBounds, the run's units of the
// stages whose tallies (run_stage_units, migration 0007) count episodes;
// episodeUnitsCountSQL estimates their number from the same tallies
// (counting the rows instead walks all the run's units).
const (
	episodeUnitsSQL = `run_units WHERE run_id = ?1
		AND stage_key IN (SELECT stage_key FROM run_stage_units WHERE run_id = ?1 AND episodes > 0)`
	episodeUnitsCountSQL = `SELECT SUM(done + cached + failed) FROM run_stage_units WHERE run_id = ?1 AND episodes > 0`
)

// groupRange runs one range's grouping query: groups with their ids
// ascending and the keys alongside.
func (s *Store) groupRange(ctx context.Context, query string, args []any) ([]epGroup, error) {
	rows, err := s.r.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []epGroup
	for rows.Next() {
		var g epGroup
		var ids, keys string
		if err := rows.Scan(&g.system, &g.split, &g.population, &ids, &keys); err != nil {
			return nil, err
		}
		g.keys = strings.Split(keys, "\x1f")
		fields := strings.Split(ids, ",")
		g.ids = make([]int64, len(fields))
		for i, f := range fields {
			if g.ids[i], err = strconv.ParseInt(f, 10, 64); err != nil {
				return nil, err
			}
		}
		if len(g.keys) != len(g.ids) {
			return nil, fmt.Errorf("a conv_id contains U+001F")
		}
		out = append(out, g)
	}
	return out, rows.Err()
}

// mergeEpisodeGroups joins the ranges' groups of the same (population,
// system, split), ordered so (evaluation first), merging their ascending
// ids (a unit, so an episode, lies in one range only), and lays the groups
// out at consecutive positions.
func mergeEpisodeGroups(parts [][]epGroup) *epGroups {
	var all []epGroup
	for _, p := range parts {
		all = append(all, p...)
	}
	order := func(a, b epGroup) int {
		return cmp.Or(cmp.Compare(a.population, b.population), cmp.Compare(a.system, b.system),
			cmp.Compare(a.split, b.split))
	}
	slices.SortStableFunc(all, order)
	eg := &epGroups{pos: map[int64]int32{}}
	for i := 0; i < len(all); {
		g := all[i]
		for i++; i < len(all) && order(all[i], g) == 0; i++ {
			g.ids, g.keys = mergeByID(g.ids, g.keys, all[i].ids, all[i].keys)
		}
		g.start = eg.n
		for _, id := range g.ids {
			eg.pos[id] = int32(eg.n)
			eg.n++
		}
		g.end = eg.n
		eg.groups = append(eg.groups, g)
	}
	eg.densify()
	return eg
}

// mergeByID merges two id-ascending lists of episodes with their keys.
func mergeByID(ia []int64, ka []string, ib []int64, kb []string) ([]int64, []string) {
	ids := make([]int64, 0, len(ia)+len(ib))
	keys := make([]string, 0, len(ia)+len(ib))
	a, b := 0, 0
	for a < len(ia) || b < len(ib) {
		if b == len(ib) || (a < len(ia) && ia[a] < ib[b]) {
			ids, keys = append(ids, ia[a]), append(keys, ka[a])
			a++
		} else {
			ids, keys = append(ids, ib[b]), append(keys, kb[b])
			b++
		}
	}
	return ids, keys
}
