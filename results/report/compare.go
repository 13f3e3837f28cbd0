package report

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"golang.org/x/sync/errgroup"

	"mascot.dev/mascot/results"
)

// PairedStat is the paired difference A − B of one criterion over matched
// episodes.
type PairedStat struct {
	N        int     `json:"n"` // matched episodes with the criterion in both runs
	MeanA    float64 `json:"mean_a"`
	MeanB    float64 `json:"mean_b"`
	MeanDiff float64 `json:"mean_diff"`
	SDDiff   float64 `json:"sd_diff"`
	CILow    float64 `json:"ci_low"`
	CIHigh   float64 `json:"ci_high"`
	Dz       float64 `json:"d_z"` // Cohen's d_z = mean_diff / sd_diff
}

// PairedRow is one system × split of a paired table.
type PairedRow struct {
	System string       `json:"system"` // "sysA − sysB" when the runs hold one different system each
	Split  string       `json:"split"`
	N      int          `json:"n"` // matched episodes
	Cells  []PairedStat `json:"cells"`
}

// PairedTable is one level of a comparison.
type PairedTable struct {
	Level    string      `json:"level"`
	Title    string      `json:"title"`
	Criteria []string    `json:"criteria"`
	Rows     []PairedRow `json:"rows"`
}

// CounterDiff is one counter in both runs.
type CounterDiff struct {
	Name  string `json:"name"`
	A     int64  `json:"a"`
	B     int64  `json:"b"`
	Delta int64  `json:"delta"` // A − B
}

// Comparison is the data of `mascot results compare A B`.
type Comparison struct {
	A        RunInfo       `json:"a"`
	B        RunInfo       `json:"b"`
	Options  Options       `json:"options"`
	Pairing  string        `json:"pairing"` // "system+conv_id+sample" or "conv_id+sample"
	Paired   []PairedTable `json:"paired"`
	Counters []CounterDiff `json:"counters"`
}

// entry is one episode of one run: row i of its score group.
type entry struct {
	key string
	g   *results.ScoreGroup
	i   int
}

// Paired is the part of a comparison computed from the runs' score
// groups, which the report cache keeps.
type Paired struct {
	Pairing string
	Tables  []PairedTable
}

// Compare pairs the evaluation episodes of runs a and b (see the package
// doc) and returns per-criterion paired differences, plus both runs'
// counters. The paired tables come from the report cache while neither
// run's data has changed (unless opts.NoCache).
func Compare(ctx context.Context, st *results.Store, a, b string, opts Options) (*Comparison, error) {
	opts = opts.withDefaults()
	compute := func() (Paired, error) {
		ga, gb, err := ScoreGroupsOf(ctx, st, a, b, opts)
		if err != nil {
			return Paired{}, err
		}
		return PairGroups(a, b, ga, gb, opts)
	}
	var p Paired
	var err error
	if opts.NoCache {
		p, err = compute()
	} else {
		p, err = Cached(ctx, st, CacheKey("paired/2", opts, a, b), []string{a, b}, compute)
	}
	if err != nil {
		return nil, fmt.Errorf("comparing runs: %w", err)
	}
	return ComparePaired(ctx, st, a, b, p, opts)
}

// ScoreGroupsOf reads the score groups (ScoreGroups with opts.SplitBy) of
// runs a and b side by side, each from the report cache unless
// opts.NoCache. Groups it computes are not stored: the caller stores the
// comparison made of them.
func ScoreGroupsOf(ctx context.Context, st *results.Store, a, b string, opts Options) (ga, gb []results.ScoreGroup, err error) {
	opts = opts.withDefaults()
	opts.IncludeTraining, opts.Units = false, nil
	var g errgroup.Group
	g.Go(func() (err error) { ga, err = runGroups(ctx, st, a, opts, false); return err })
	g.Go(func() (err error) { gb, err = runGroups(ctx, st, b, opts, false); return err })
	if err := g.Wait(); err != nil {
		return nil, nil, err
	}
	return ga, gb, nil
}

// CompareGroups is Compare on score groups already read (ScoreGroups of
// runs a and b with opts.SplitBy), for callers that use them for more.
func CompareGroups(ctx context.Context, st *results.Store, a, b string, ga, gb []results.ScoreGroup, opts Options) (*Comparison, error) {
	p, err := PairGroups(a, b, ga, gb, opts)
	if err != nil {
		return nil, err
	}
	return ComparePaired(ctx, st, a, b, p, opts)
}

// ComparePaired completes a comparison from its paired tables with what
// is read now: both runs' names and status, and their counters.
func ComparePaired(ctx context.Context, st *results.Store, a, b string, p Paired, opts Options) (*Comparison, error) {
	cmp := &Comparison{Options: opts.withDefaults(), Pairing: p.Pairing, Paired: p.Tables}
	for _, side := range []struct {
		id  string
		dst *RunInfo
	}{{a, &cmp.A}, {b, &cmp.B}} {
		run, err := st.GetRun(ctx, side.id)
		if err != nil {
			return nil, fmt.Errorf("comparing runs: %w", err)
		}
		*side.dst = RunInfo{ID: run.ID, Name: run.Name, ConfigName: run.ConfigName, Status: run.Status}
	}
	var err error
	if cmp.Counters, err = counterDiffs(ctx, st, a, b); err != nil {
		return nil, err
	}
	return cmp, nil
}

// PairGroups pairs the episodes of runs a and b's score groups and
// computes the paired tables, with bootstrap CIs per opts.
func PairGroups(a, b string, ga, gb []results.ScoreGroup, opts Options) (Paired, error) {
	opts = opts.withDefaults()
	cmp := &Comparison{}
	sysA, sysB := systemsOf(ga), systemsOf(gb)
	shared := false
	for s := range sysA {
		if sysB[s] {
			shared = true
		}
	}
	cmp.Pairing = "system+conv_id+sample"
	label := func(sys string) string { return sys }
	if !shared {
		if len(sysA) > 1 || len(sysB) > 1 {
			return Paired{}, fmt.Errorf("comparing runs %s and %s: no system in common and several systems per run", a, b)
		}
		cmp.Pairing = "conv_id+sample"
		name := fmt.Sprintf("%s − %s", only(sysA), only(sysB))
		label = func(string) string { return name }
	}
	ea, eb := entries(ga, label), entries(gb, label)
	levels := make([]string, 0, len(ea))
	for lv := range ea {
		if _, ok := eb[lv]; ok {
			levels = append(levels, lv)
		}
	}
	sort.Slice(levels, func(x, y int) bool { return levelRank(levels[x]) < levelRank(levels[y]) })
	var jobs []pairedJob
	for _, lv := range levels {
		crit := unionCriteria(append(filterLevel(ga, lv), filterLevel(gb, lv)...))
		withOverall := lv != results.LevelMetric
		if withOverall {
			crit = append(crit, Overall)
		}
		t := PairedTable{Level: lv, Title: levelTitles[lv], Criteria: crit}
		for _, sys := range sortedKeys(ea[lv]) {
			mb, ok := eb[lv][sys]
			if !ok {
				continue
			}
			rows, rowJobs := pairedRows(sys, ea[lv][sys], mb, crit, withOverall)
			for _, j := range rowJobs {
				j.table, j.row = len(cmp.Paired), len(t.Rows)+j.row
				jobs = append(jobs, j)
			}
			t.Rows = append(t.Rows, rows...)
		}
		cmp.Paired = append(cmp.Paired, t)
	}
	if opts.Resamples > 0 {
		batches := sharePairedDraws(jobs)
		parallel(len(batches), func(i int) { pairedCIs(cmp, batches[i], opts) })
	}
	return Paired{Pairing: cmp.Pairing, Tables: cmp.Paired}, nil
}

func systemsOf(gs []results.ScoreGroup) map[string]bool {
	m := map[string]bool{}
	for _, g := range gs {
		m[g.System] = true
	}
	return m
}

func only(m map[string]bool) string {
	for k := range m {
		return k
	}
	return ""
}

func filterLevel(gs []results.ScoreGroup, lv string) []results.ScoreGroup {
	var out []results.ScoreGroup
	for _, g := range gs {
		if g.Level == lv {
			out = append(out, g)
		}
	}
	return out
}

// entries indexes groups as level → system label → the episodes sorted by
// pair key (of a key met twice, the later group's), so that pairedRows
// pairs two runs by merging sorted lists instead of a map per episode.
// The levels of one system usually list the same keys in the same order
// (the groups of one system × split hold the same episodes): the sorted
// order is then computed once and reused.
func entries(gs []results.ScoreGroup, label func(string) string) map[string]map[string][]entry {
	out := map[string]map[string][]entry{}
	sizes := map[[2]string]int{}
	for gi := range gs {
		sizes[[2]string{gs[gi].Level, label(gs[gi].System)}] += len(gs[gi].Keys)
	}
	for gi := range gs {
		g := &gs[gi]
		sys := label(g.System)
		if out[g.Level] == nil {
			out[g.Level] = map[string][]entry{}
		}
		es := out[g.Level][sys]
		if es == nil {
			es = make([]entry, 0, sizes[[2]string{g.Level, sys}])
		}
		for i, k := range g.Keys {
			es = append(es, entry{key: k, g: g, i: i})
		}
		out[g.Level][sys] = es
	}
	type sorted struct {
		keys []string // the unsorted keys the order was computed for
		perm []int32
	}
	orders := map[string]*sorted{}
	levels := sortedKeys(out)
	for _, lv := range levels {
		bySys := out[lv]
		for _, sys := range sortedKeys(bySys) {
			es := bySys[sys]
			o := orders[sys]
			if o == nil || len(o.keys) != len(es) || !sameKeys(o.keys, es) {
				o = &sorted{keys: make([]string, len(es)), perm: make([]int32, len(es))}
				for i := range es {
					o.keys[i], o.perm[i] = es[i].key, int32(i)
				}
				slices.SortStableFunc(o.perm, func(x, y int32) int { return strings.Compare(o.keys[x], o.keys[y]) })
				orders[sys] = o
			}
			kept := make([]entry, 0, len(es))
			for p, i := range o.perm {
				if p+1 < len(o.perm) && o.keys[o.perm[p+1]] == o.keys[i] {
					continue // a later group holds the key too
				}
				kept = append(kept, es[i])
			}
			bySys[sys] = kept
		}
	}
	return out
}

// sameKeys reports whether es lists keys in order.
func sameKeys(keys []string, es []entry) bool {
	for i := range es {
		if es[i].key != keys[i] {
			return false
		}
	}
	return true
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// columnsOf returns, per criterion of crit, its column in g (−1: none).
func columnsOf(g *results.ScoreGroup, crit []string) []int {
	cols := make([]int, len(crit))
	for c, name := range crit {
		cols[c] = slices.Index(g.Criteria, name)
	}
	return cols
}

// values writes an entry's values in column order (cols from columnsOf),
// with its Overall last, into row.
func (e entry) values(row []float64, cols []int, withOverall bool) {
	var sum float64
	var n int
	for c, col := range cols {
		v := math.NaN()
		if col >= 0 {
			v = e.g.Values[col][e.i]
		}
		if !math.IsNaN(v) {
			sum += v
			n++
		}
		row[c] = v
	}
	if withOverall {
		row[len(cols)-1] = math.NaN()
		if n > 0 {
			row[len(cols)-1] = sum / float64(n)
		}
	}
}

// pairedJob is the bootstrap of one paired row: the differences of its
// matched episodes (keys, in order), one column per criterion.
type pairedJob struct {
	sys, split string
	keys       []string
	diff       [][]float64
	table, row int // where the row is in Comparison.Paired
}

// pairedRows builds one row per split of A (in paper order) plus "all",
// without their confidence intervals: it returns one job per row for them.
func pairedRows(sys string, a, b []entry, crit []string, withOverall bool) ([]PairedRow, []pairedJob) {
	cols := map[*results.ScoreGroup][]int{}
	colsOf := func(g *results.ScoreGroup) []int {
		c, ok := cols[g]
		if !ok {
			c = columnsOf(g, crit)
			cols[g] = c
		}
		return c
	}
	// The matched episodes in key order, with both runs' values side by
	// side in one buffer.
	w := len(crit)
	type matched struct {
		key   string
		split string
		at    int // values at vals[at : at+w] (A) and vals[at+w : at+2w] (B)
	}
	ms := make([]matched, 0, min(len(a), len(b)))
	vals := make([]float64, 0, 2*w*cap(ms))
	perSplit := map[string]int{}
	for i, j := 0, 0; i < len(a) && j < len(b); { // both sorted by key, keys unique
		switch d := strings.Compare(a[i].key, b[j].key); {
		case d < 0:
			i++
			continue
		case d > 0:
			j++
			continue
		}
		ea, eb := a[i], b[j]
		i, j = i+1, j+1
		at := len(vals)
		vals = vals[:at+2*w]
		ea.values(vals[at:at+w], colsOf(ea.g), withOverall)
		eb.values(vals[at+w:at+2*w], colsOf(eb.g), withOverall)
		ms = append(ms, matched{ea.key, ea.g.Split, at})
		perSplit[ea.g.Split]++
	}
	splits := sortedKeys(perSplit)
	if len(ms) > 0 {
		if _, ok := perSplit["all"]; !ok {
			splits = append(splits, "all") // every split's episodes (a split named all holds them already)
		}
	}
	sort.SliceStable(splits, func(x, y int) bool { return SplitLess(splits[x], splits[y]) })
	if len(splits) == 2 && splits[1] == "all" {
		splits = splits[:1] // one split only: "all" would say the same
	}
	var rows []PairedRow
	var jobs []pairedJob
	col, ca, cb := make([]float64, len(ms)), make([]float64, len(ms)), make([]float64, len(ms))
	for _, sp := range splits {
		var sel []matched
		if sp == "all" {
			sel = ms
		} else {
			sel = make([]matched, 0, perSplit[sp])
			for _, m := range ms {
				if m.split == sp {
					sel = append(sel, m)
				}
			}
		}
		diff := make([][]float64, len(sel))
		flat := make([]float64, len(sel)*w)
		keys := make([]string, len(sel))
		for i, m := range sel {
			d := flat[i*w : (i+1)*w]
			for c := range d {
				d[c] = vals[m.at+c] - vals[m.at+w+c] // NaN when either is missing
			}
			diff[i], keys[i] = d, m.key
		}
		row := PairedRow{System: sys, Split: sp, N: len(sel), Cells: make([]PairedStat, len(crit))}
		col, ca, cb := col[:len(sel)], ca[:len(sel)], cb[:len(sel)]
		for c := range crit {
			for i, m := range sel {
				col[i] = diff[i][c]
				ca[i], cb[i] = math.NaN(), math.NaN()
				if !math.IsNaN(col[i]) {
					ca[i], cb[i] = vals[m.at+c], vals[m.at+w+c]
				}
			}
			n, md, sd := MeanStd(col)
			_, ma, _ := MeanStd(ca)
			_, mb, _ := MeanStd(cb)
			ps := PairedStat{N: n, MeanA: ma, MeanB: mb, MeanDiff: md, SDDiff: sd, Dz: math.NaN(),
				CILow: math.NaN(), CIHigh: math.NaN()}
			if sd > 0 {
				ps.Dz = md / sd
			}
			row.Cells[c] = ps
		}
		jobs = append(jobs, pairedJob{sys: sys, split: sp, keys: keys, diff: diff, row: len(rows)})
		rows = append(rows, row)
	}
	return rows, jobs
}

// sharePairedDraws batches the paired rows of one system × split whose
// matched episodes are the same (the levels of a comparison, usually): the
// bootstrap's draws depend only on the number of rows and the seed, so one
// pass of draws serves every column of the batch, with the very numbers
// separate passes give (as shareDraws does for reports).
func sharePairedDraws(jobs []pairedJob) [][]pairedJob {
	type key struct{ sys, split string }
	var out [][]pairedJob
	at := map[key][]int{}
	for _, j := range jobs {
		k := key{j.sys, j.split}
		placed := false
		for _, b := range at[k] {
			if slices.Equal(out[b][0].keys, j.keys) {
				out[b] = append(out[b], j)
				placed = true
				break
			}
		}
		if !placed {
			at[k] = append(at[k], len(out))
			out = append(out, []pairedJob{j})
		}
	}
	return out
}

// pairedCIs bootstraps a batch's differences side by side and sets the
// confidence intervals of its rows.
func pairedCIs(cmp *Comparison, batch []pairedJob, opts Options) {
	n, width := len(batch[0].diff), 0
	for _, j := range batch {
		width += len(cmp.Paired[j.table].Rows[j.row].Cells)
	}
	wide := make([][]float64, n)
	flat := make([]float64, n*width)
	for r := range wide {
		row := flat[r*width : r*width : (r+1)*width]
		for _, j := range batch {
			row = append(row, j.diff[r]...)
		}
		wide[r] = row
	}
	lo, hi := BootstrapStream(wide, width, opts.Resamples, opts.Seed, drawStream(batch[0].keys), opts.Confidence)
	off := 0
	for _, j := range batch {
		cells := cmp.Paired[j.table].Rows[j.row].Cells
		for c := range cells {
			cells[c].CILow, cells[c].CIHigh = lo[off+c], hi[off+c]
		}
		off += len(cells)
	}
}

func counterDiffs(ctx context.Context, st *results.Store, a, b string) ([]CounterDiff, error) {
	ca, err := st.RunCounters(ctx, a)
	if err != nil {
		return nil, err
	}
	cb, err := st.RunCounters(ctx, b)
	if err != nil {
		return nil, err
	}
	names := map[string]bool{}
	for k := range ca {
		names[k] = true
	}
	for k := range cb {
		names[k] = true
	}
	out := make([]CounterDiff, 0, len(names))
	for _, k := range sortedKeys(names) {
		out = append(out, CounterDiff{Name: k, A: ca[k], B: cb[k], Delta: ca[k] - cb[k]})
	}
	return out, nil
}
