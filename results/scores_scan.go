package results

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"slices"
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
	// dense[id−minID] is pos[id]+1 (0: not in the run) when ids are dense
	// enough; a slice index is cheaper than a map lookup per value row.
	dense []int32
	minID int64
	// turns maps turn ids to episode positions (the values of turn
	// judgments arrive keyed by turn id); scanValues reads it before its
	// workers take the reader connections.
	turns *turnIndex
}

// turnIndex maps the turn ids of the run's episodes to episode positions.
type turnIndex struct {
	dense []int32 // dense[id−minID] = position+1, 0: not a turn of the run
	minID int64
	pos   map[int64]int32 // when the ids are too sparse for dense
}

func (ti *turnIndex) position(id int64) (int, bool) {
	if ti.dense != nil {
		d := id - ti.minID
		if d < 0 || d >= int64(len(ti.dense)) || ti.dense[d] == 0 {
			return 0, false
		}
		return int(ti.dense[d] - 1), true
	}
	p, ok := ti.pos[id]
	return int(p), ok
}

// readTurns builds the turn index of the run's episodes in eg from one
// packed row ("turn:episode" entries).
func (s *Store) readTurns(ctx context.Context, runID string, eg *epGroups) (*turnIndex, error) {
	var packed sql.NullString
	err := s.r.QueryRowContext(ctx, `SELECT group_concat(t.id || ':' || t.episode_id, ',')
		FROM run_units ru JOIN episodes e ON e.unit_fp = ru.fingerprint JOIN turns t ON t.episode_id = e.id
		WHERE ru.run_id = ?`, runID).Scan(&packed)
	if err != nil {
		return nil, fmt.Errorf("reading turns of run %s: %w", runID, err)
	}
	pos := map[int64]int32{}
	lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
	rest := packed.String
	for len(rest) > 0 {
		var entry, tid, eid string
		entry, rest, _ = strings.Cut(rest, ",")
		tid, eid, _ = strings.Cut(entry, ":")
		t, err1 := strconv.ParseInt(tid, 10, 64)
		e, err2 := strconv.ParseInt(eid, 10, 64)
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("reading turns of run %s: bad entry %q", runID, entry)
		}
		if p, ok := eg.position(e); ok {
			pos[t] = int32(p)
			lo, hi = min(lo, t), max(hi, t)
		}
	}
	ti := &turnIndex{pos: pos}
	if len(pos) > 0 && hi-lo < int64(4*len(pos)+1024) {
		ti.minID, ti.dense, ti.pos = lo, make([]int32, hi-lo+1), nil
		for t, p := range pos {
			ti.dense[t-lo] = p + 1
		}
	}
	return ti, nil
}

// position returns the global position of an episode of the run.
func (eg *epGroups) position(id int64) (int, bool) {
	if eg.dense != nil {
		d := id - eg.minID
		if d < 0 || d >= int64(len(eg.dense)) || eg.dense[d] == 0 {
			return 0, false
		}
		return int(eg.dense[d] - 1), true
	}
	p, ok := eg.pos[id]
	return int(p), ok
}

// densify builds the dense lookup when the ids span at most 4n+1024.
func (eg *epGroups) densify() {
	if eg.n == 0 {
		return
	}
	lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
	for id := range eg.pos {
		lo, hi = min(lo, id), max(hi, id)
	}
	if hi-lo >= int64(4*eg.n+1024) {
		return
	}
	eg.minID, eg.dense = lo, make([]int32, hi-lo+1)
	for id, p := range eg.pos {
		eg.dense[id-lo] = p + 1
	}
}

type epGroup struct {
	system, split string
	population    string // empty: evaluation; else the training mode
	start, end    int    // positions [start, end)
	ids           []int64
	keys          []string
}

// column accumulates one (level, criterion) over all positions.
type column struct {
	sum []float64
	cnt []int32
}

// Value levels, by the tag byte the scan query prefixes criteria with.
const (
	lvAgent = iota
	lvCollective
	lvMetric
	numLevels
)

var levelOfTag = map[byte]int{'a': lvAgent, 'c': lvCollective, 'm': lvMetric}

// valuesSQL reads the values of the units in a fingerprint range packed
// one row per unit, three columns: the unit's packed score sums (migration
// 0008: "episode␟tag␟sum␟n" entries) when it has them, else NULL; and, only
// when it has not, its raw judgments and its per-episode metrics (see
// rawJudgedSQL). Entries are joined by ␞ (U+001E). units is the SQL of the
// unit fingerprints, aliased ru.
//
// Packing is what makes the scan fast: a row through go-sqlite3 costs about
// as much as SQLite's whole per-value work, and SQLite's REAL-to-text
// conversion round-trips (17 significant digits), so the values arrive
// bit for bit. The score sums cut the entries read per evaluation episode
// from about 40 to 11.
func valuesSQL(units, where string) string {
	return `SELECT us.packed,
		CASE WHEN us.unit_fp IS NULL THEN ` + rawJudgedSQL + ` END,
		CASE WHEN us.unit_fp IS NULL THEN ` + rawMetricsSQL + ` END
		FROM ` + units + ` LEFT JOIN unit_scores us ON us.unit_fp = ru.fingerprint
		WHERE 1` + where + ` ORDER BY ru.fingerprint`
}

// rawJudgedSQL packs the judgments of unit ru as "episode␟tag␟value"
// entries in index order; a judgment of a turn gives −turn id for the
// episode (accumulate resolves it through epGroups.turns, read in one
// packed row, far cheaper than a lookup in the wide turns table per
// judgment). tag is the level byte ('a' per-agent: turn judgments and
// episode judgments with an agent; 'c' collective; 'm' metric) followed by
// the criterion; judged values are normalised to 0..100 as before.
// rawMetricsSQL packs the unit's per-episode metrics likewise.
var (
	rawJudgedSQL = `(SELECT group_concat(COALESCE(j.episode_id, -j.turn_id)
			|| char(31) || (CASE WHEN j.agent = '' AND j.episode_id IS NOT NULL THEN 'c' ELSE 'a' END) || j.criterion
			|| char(31) || ` + normExpr("j") + `, char(30))
		FROM judgments j WHERE j.unit_fp = ru.fingerprint AND j.candidate_id IS NULL)`
	rawMetricsSQL = `(SELECT group_concat(m.episode_id || char(31) || 'm' || m.name || char(31) || m.value, char(30))
		FROM metrics m WHERE m.unit_fp = ru.fingerprint AND m.episode_id IS NOT NULL)`
	rawValuesSQL = rawJudgedSQL + `, ` + rawMetricsSQL
)

// unitsSQL is the unit source of valuesSQL: the run's units that hold
// values (run id ?1; migration 0009's run_scored_units, so the scan skips
// the run's many units without any), or the fingerprints of the JSON array
// ?1 when scoped.
func unitsSQL(scoped bool) string {
	if scoped {
		return `(SELECT value AS fingerprint FROM json_each(?1)) ru`
	}
	return `run_scored_units ru`
}

// unitRanges splits the units into k fingerprint ranges of similar size;
// it returns the k−1 inner bounds. units nil means the run's units that
// hold values.
func (s *Store) unitRanges(ctx context.Context, runID string, units []string, k int) ([]string, error) {
	if units != nil {
		sorted := slices.Sorted(slices.Values(units))
		k = max(1, min(k, len(sorted)/500))
		var bounds []string
		for i := 1; i < k; i++ {
			bounds = append(bounds, sorted[i*len(sorted)/k])
		}
		return bounds, nil
	}
	return s.fingerprintBounds(ctx, `SELECT COUNT(*) FROM run_scored_units WHERE run_id = ?1`,
		`run_scored_units WHERE run_id = ?1`, runID, k)
}

// fingerprintBounds splits the units that rows selects (SQL after FROM,
// with ?1 the run id, from a table keyed by run_id and fingerprint) into k
// fingerprint ranges of about count/k units each (count: a query for their
// number, with ?1 the run id; at least 500 a range); it returns the k−1
// inner bounds. Bounds only balance the work: any bounds give the same
// results, so count may be an estimate.
func (s *Store) fingerprintBounds(ctx context.Context, count, rows, runID string, k int) ([]string, error) {
	var n sql.NullInt64
	if err := s.r.QueryRowContext(ctx, count, runID).Scan(&n); err != nil {
		return nil, fmt.Errorf("counting units of run %s: %w", runID, err)
	}
	k = max(1, min(k, int(n.Int64)/500))
	var bounds []string
	for i := 1; i < k; i++ {
		var fp string
		err := s.r.QueryRowContext(ctx, `SELECT fingerprint FROM `+rows+` ORDER BY fingerprint LIMIT 1 OFFSET ?2`,
			runID, i*int(n.Int64)/k).Scan(&fp)
		if errors.Is(err, sql.ErrNoRows) { // fewer units than estimated
			break
		}
		if err != nil {
			return nil, fmt.Errorf("splitting units of run %s: %w", runID, err)
		}
		bounds = append(bounds, fp)
	}
	return bounds, nil
}

// columns are the accumulated values of one scan, per level and criterion.
type columns [numLevels]map[string]*column

// get returns (creating it) the column of a tag.
func (cs *columns) get(tag string, n int) (*column, error) {
	lv, ok := levelOfTag[tag[0]]
	if !ok {
		return nil, fmt.Errorf("unknown value tag %q", tag)
	}
	c, ok := cs[lv][tag[1:]]
	if !ok {
		c = &column{sum: make([]float64, n), cnt: make([]int32, n)}
		cs[lv][tag[1:]] = c
	}
	return c, nil
}

// scanValues reads every value row of the units in parallel ranges and
// sums them per (level, criterion, position). units nil means the run's.
func (s *Store) scanValues(ctx context.Context, runID string, units []string, eg *epGroups) (*columns, error) {
	bounds, err := s.unitRanges(ctx, runID, units, runtime.GOMAXPROCS(0))
	if err != nil {
		return nil, err
	}
	var first any = runID // ?1: the run id, or the JSON array of units
	if units != nil {
		b, err := json.Marshal(units)
		if err != nil {
			return nil, fmt.Errorf("reading scores of run %s: %w", runID, err)
		}
		first = string(b)
	}
	src := unitsSQL(units != nil)
	where := ` AND ru.run_id = ?1`
	if units != nil {
		where = ``
	}
	// Turn judgments arrive keyed by turn id only from units without score
	// sums; the turn index is read, and the scan restarted, only when one
	// does.
	parts, err := s.scanParts(ctx, src, where, first, bounds, eg)
	if errors.Is(err, errNeedTurns) {
		if eg.turns, err = s.readTurns(ctx, runID, eg); err != nil {
			return nil, err
		}
		parts, err = s.scanParts(ctx, src, where, first, bounds, eg)
	}
	if err != nil {
		return nil, fmt.Errorf("reading scores of run %s: %w", runID, err)
	}
	out, ok := mergeParts(parts)
	if !ok {
		// Units of two ranges add to one cell: a sum over ranges would
		// depend on where the ranges split, so scan in one range, in
		// fingerprint order, as the report blocks add them.
		if parts, err = s.scanParts(ctx, src, where, first, nil, eg); err != nil {
			return nil, fmt.Errorf("reading scores of run %s: %w", runID, err)
		}
		out = parts[0]
	}
	return out, nil
}

// mergeParts adds the ranges' sums into the first; ok is false when two
// ranges hold values of one cell.
func mergeParts(parts []*columns) (out *columns, ok bool) {
	out, ok = parts[0], true
	for _, p := range parts[1:] {
		for lv := range p {
			for crit, c := range p[lv] {
				dst, found := out[lv][crit]
				if !found {
					out[lv][crit] = c
					continue
				}
				for i := range c.sum {
					if dst.cnt[i] != 0 && c.cnt[i] != 0 {
						ok = false
					}
					dst.sum[i] += c.sum[i]
					dst.cnt[i] += c.cnt[i]
				}
			}
		}
	}
	return out, ok
}

// errNeedTurns stops a scan that meets a raw turn judgment before the turn
// index is read.
var errNeedTurns = errors.New("a raw turn judgment needs the turn index")

// scanParts runs one worker per fingerprint range and returns their sums.
func (s *Store) scanParts(ctx context.Context, src, where string, first any, bounds []string,
	eg *epGroups) ([]*columns, error) {
	parts := make([]*columns, len(bounds)+1)
	g, gctx := errgroup.WithContext(ctx)
	for w := range parts {
		rng := where
		args := []driver.NamedValue{{Ordinal: 1, Value: first}}
		if w > 0 {
			rng += ` AND ru.fingerprint >= ?2`
			args = append(args, driver.NamedValue{Ordinal: 2, Value: bounds[w-1]})
		}
		if w < len(bounds) {
			rng += ` AND ru.fingerprint < ?3`
			args = append(args, driver.NamedValue{Ordinal: 3, Value: bounds[w]})
		}
		g.Go(func() error {
			cols, err := s.scanRange(gctx, valuesSQL(src, rng), args, eg)
			parts[w] = cols
			return err
		})
	}
	return parts, g.Wait()
}

// scanRange runs one range's query on a raw driver connection: rows come
// straight from go-sqlite3 without database/sql's per-row locking and
// conversions.
func (s *Store) scanRange(ctx context.Context, query string, args []driver.NamedValue, eg *epGroups) (*columns, error) {
	cols := &columns{}
	for lv := range cols {
		cols[lv] = map[string]*column{}
	}
	conn, err := s.r.Conn(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	// Read the pages through a memory map instead of a copy per page read;
	// the connection is read-only, and the setting stays with it.
	if _, err := conn.ExecContext(ctx, `PRAGMA mmap_size = 1073741824`); err != nil {
		return nil, err
	}
	err = conn.Raw(func(dc any) error {
		pc, ok := dc.(driver.ConnPrepareContext)
		if !ok {
			return fmt.Errorf("driver connection %T cannot prepare with a context", dc)
		}
		st, err := pc.PrepareContext(ctx, query)
		if err != nil {
			return err
		}
		defer st.Close()
		sq, ok := st.(driver.StmtQueryContext)
		if !ok {
			return fmt.Errorf("driver statement %T cannot query with a context", st)
		}
		rows, err := sq.QueryContext(ctx, args)
		if err != nil {
			return err
		}
		defer rows.Close()
		return accumulate(rows, eg, cols)
	})
	return cols, err
}

// accumulate sums the unpacked values of the rows into cols.
func accumulate(rows driver.Rows, eg *epGroups, cols *columns) error {
	dest := make([]driver.Value, 3)
	var last *column
	var lastTag string
	add := func(eid int64, tag string, v float64, n int32) error {
		var p int
		var ok bool
		if eid < 0 { // a turn judgment: −turn id
			if eg.turns == nil {
				return errNeedTurns
			}
			p, ok = eg.turns.position(-eid)
		} else {
			p, ok = eg.position(eid)
		}
		if !ok {
			return nil // an episode outside the run
		}
		if last == nil || tag != lastTag {
			var err error
			if last, err = cols.get(tag, eg.n); err != nil {
				return err
			}
			lastTag = tag
		}
		last.sum[p] += v
		last.cnt[p] += n
		return nil
	}
	for {
		if err := rows.Next(dest); err != nil {
			if err == io.EOF {
				return nil
			}
			return err
		}
		for _, d := range dest {
			packed, _ := d.(string)
			if err := eachValue(packed, add); err != nil {
				return err
			}
		}
	}
}

var levelNames = [numLevels]string{LevelAgent, LevelCollective, LevelMetric}

// assembleGroups cuts the columns into ScoreGroups, ordered by level,
// population (evaluation first), system and split. When scored, a group keeps only the episodes with at
// least one value at its level.
func assembleGroups(eg *epGroups, cols *columns, scored bool) []ScoreGroup {
	var out []ScoreGroup
	for lv, byCrit := range cols {
		crits := make([]string, 0, len(byCrit))
		for c := range byCrit {
			crits = append(crits, c)
		}
		sort.Strings(crits)
		for _, g := range eg.groups {
			keep := make([]bool, g.end-g.start)
			for i := range keep {
				keep[i] = !scored
			}
			sg := ScoreGroup{Level: levelNames[lv], System: g.system, Split: g.split, Population: g.population}
			var used []*column
			for _, crit := range crits {
				c := byCrit[crit]
				if !anyCount(c.cnt[g.start:g.end]) {
					continue
				}
				sg.Criteria = append(sg.Criteria, crit)
				used = append(used, c)
				if scored {
					for i, n := range c.cnt[g.start:g.end] {
						keep[i] = keep[i] || n > 0
					}
				}
			}
			if len(sg.Criteria) == 0 {
				continue
			}
			kept := 0
			for _, k := range keep {
				if k {
					kept++
				}
			}
			var idx []int // nil: every episode of the group
			switch {
			case kept == 0: // no episode: the lists stay nil
			case kept == len(keep):
				// The levels' groups share the episode lists (read only,
				// as groups decoded from the cache share them too).
				sg.Episodes, sg.Keys = g.ids[:len(g.ids):len(g.ids)], g.keys[:len(g.keys):len(g.keys)]
			default:
				idx = make([]int, 0, kept)
				sg.Episodes, sg.Keys = make([]int64, 0, kept), make([]string, 0, kept)
				for i, k := range keep {
					if k {
						idx = append(idx, i)
						sg.Episodes = append(sg.Episodes, g.ids[i])
						sg.Keys = append(sg.Keys, g.keys[i])
					}
				}
			}
			sg.Values = make([][]float64, 0, len(used))
			for _, c := range used {
				sum, cnt := c.sum[g.start:g.end], c.cnt[g.start:g.end]
				vals := make([]float64, kept)
				for k := range vals {
					i := k
					if idx != nil {
						i = idx[k]
					}
					vals[k] = math.NaN()
					if n := cnt[i]; n > 0 {
						vals[k] = sum[i] / float64(n)
					}
				}
				sg.Values = append(sg.Values, vals)
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
