package results

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"mascot.dev/mascot/results/jsonl"
)

// refEpisodeGroups is episodeGroups as it was before the parallel ranges:
// one query over all the run's units, the reference the ranges are
// checked against.
func (s *Store) refEpisodeGroups(ctx context.Context, runID, split string, training bool) (*epGroups, error) {
	only := ` AND ` + evaluationSQL("e")
	if training {
		only = ``
	}
	rows, err := s.r.QueryContext(ctx, `SELECT e.system, `+split+` AS sp, `+populationSQL("e")+` AS pop,
		group_concat(e.id, ',' ORDER BY e.id), group_concat(e.conv_id || '#' || e.sample_idx, char(31) ORDER BY e.id)
		FROM run_units ru JOIN episodes e ON e.unit_fp = ru.fingerprint WHERE ru.run_id = ?`+only+`
		GROUP BY e.system, sp, pop ORDER BY pop, e.system, sp`, runID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	eg := &epGroups{pos: map[int64]int32{}}
	for rows.Next() {
		var g epGroup
		var ids, keys string
		if err := rows.Scan(&g.system, &g.split, &g.population, &ids, &keys); err != nil {
			return nil, err
		}
		g.keys = strings.Split(keys, "\x1f")
		g.start = eg.n
		for _, f := range strings.Split(ids, ",") {
			id, err := strconv.ParseInt(f, 10, 64)
			if err != nil {
				return nil, err
			}
			g.ids = append(g.ids, id)
			eg.pos[id] = int32(eg.n)
			eg.n++
		}
		g.end = eg.n
		eg.groups = append(eg.groups, g)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	eg.densify()
	return eg, nil
}

// TestEpisodeGroupsInRangesEqualOneQuery checks that the grouping read in
// parallel fingerprint ranges and merged by id returns exactly the groups,
// order, ids, keys and positions of one query over all the run's units,
// on units whose fingerprints do not follow their episodes' ids (so each
// range holds part of every group), with evaluation and training episodes,
// an episode-less unit and a unit of another run.
func TestEpisodeGroupsInRangesEqualOneQuery(t *testing.T) {
	s := openTemp(t)
	ctx := context.Background()
	mustRun(t, s, "r")
	mustRun(t, s, "other")
	systems := []string{"mascot", "zero-shot", "few-shot"}
	valences := []string{"positive", "negative", "", "neutral"}
	modes := []string{"", "", "", ModeIndependent, ModeBranching}
	const units = 1200
	for u := range units {
		fp := fmt.Sprintf("u-%04d", (u*7919)%units) // ids ascend, fingerprints do not
		err := s.CommitUnit(ctx, Unit{Fingerprint: fp, Kind: "episodes", StageKey: "gen", RunID: "r"}, func(tx *Tx) error {
			for k := range 1 + u%2 {
				ep := Episode{Idx: k, SampleIdx: k, System: systems[u%3], Valence: valences[u%4], Mode: modes[u%5],
					Record: jsonl.Record{ConvID: fmt.Sprintf("c%05d", u)}}
				if ep.Valence == "" && u%8 == 2 {
					ep.Domain = "product"
				}
				if _, err := tx.InsertEpisode(ep); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, u := range []Unit{{Fingerprint: "u-empty", Kind: "judge", StageKey: "judge", RunID: "r"},
		{Fingerprint: "u-other", Kind: "episodes", StageKey: "gen", RunID: "other"}} {
		err := s.CommitUnit(ctx, u, func(tx *Tx) error {
			if u.RunID == "other" {
				_, err := tx.InsertEpisode(Episode{System: "mascot", Valence: "positive",
					Record: jsonl.Record{ConvID: "c-other"}})
				return err
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if b, err := s.fingerprintBounds(ctx, episodeUnitsCountSQL, episodeUnitsSQL, "r", 2); err != nil || len(b) != 1 {
		t.Fatalf("the run's units should be split in two ranges: %v %v", b, err)
	}
	for _, splitBy := range []string{"auto", "domain", "none"} {
		split, err := splitExpr(splitBy)
		if err != nil {
			t.Fatal(err)
		}
		for _, training := range []bool{false, true} {
			got, err := s.episodeGroups(ctx, "r", split, training)
			if err != nil {
				t.Fatal(err)
			}
			want, err := s.refEpisodeGroups(ctx, "r", split, training)
			if err != nil {
				t.Fatal(err)
			}
			what := fmt.Sprintf("split %s, training %t", splitBy, training)
			if len(want.groups) < 3 || got.n != want.n || len(got.groups) != len(want.groups) {
				t.Fatalf("%s: %d episodes in %d groups, want %d in %d", what, got.n, len(got.groups), want.n, len(want.groups))
			}
			for i, w := range want.groups {
				g := got.groups[i]
				if g.system != w.system || g.split != w.split || g.population != w.population || g.start != w.start ||
					g.end != w.end || !slices.Equal(g.ids, w.ids) || !slices.Equal(g.keys, w.keys) {
					t.Fatalf("%s: group %d = %s/%s/%s [%d,%d) %v, want %s/%s/%s [%d,%d) %v", what, i,
						g.population, g.system, g.split, g.start, g.end, g.ids, w.population, w.system, w.split,
						w.start, w.end, w.ids)
				}
			}
			for id, p := range want.pos {
				if q, ok := got.position(id); !ok || q != int(p) {
					t.Fatalf("%s: episode %d at %d (%t), want %d", what, id, q, ok, p)
				}
			}
		}
	}
}
