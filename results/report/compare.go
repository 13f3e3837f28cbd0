package report

import (
	"context"
	"fmt"
	"math"
	"sort"

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

// entry is one episode's values in one run.
type entry struct {
	split string
	vals  map[string]float64
}

// Compare pairs the evaluation episodes of runs a and b (see the package
// doc) and returns per-criterion paired differences, plus both runs'
// counters.
func Compare(ctx context.Context, st *results.Store, a, b string, opts Options) (*Comparison, error) {
	opts = opts.withDefaults()
	var g [2][]results.ScoreGroup
	for i, id := range []string{a, b} {
		var err error
		if g[i], err = st.ScoreGroups(ctx, id, opts.SplitBy); err != nil {
			return nil, fmt.Errorf("comparing runs: %w", err)
		}
	}
	return CompareGroups(ctx, st, a, b, g[0], g[1], opts)
}

// CompareGroups is Compare on score groups already read (ScoreGroups of
// runs a and b with opts.SplitBy), for callers that use them for more.
func CompareGroups(ctx context.Context, st *results.Store, a, b string, ga, gb []results.ScoreGroup, opts Options) (*Comparison, error) {
	opts = opts.withDefaults()
	cmp := &Comparison{Options: opts}
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
			return nil, fmt.Errorf("comparing runs %s and %s: no system in common and several systems per run", a, b)
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
			t.Rows = append(t.Rows, pairedRows(sys, ea[lv][sys], mb, crit, withOverall, opts)...)
		}
		cmp.Paired = append(cmp.Paired, t)
	}
	var err error
	if cmp.Counters, err = counterDiffs(ctx, st, a, b); err != nil {
		return nil, err
	}
	return cmp, nil
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

// entries indexes groups as level → system label → pair key → entry.
func entries(gs []results.ScoreGroup, label func(string) string) map[string]map[string]map[string]entry {
	out := map[string]map[string]map[string]entry{}
	for _, g := range gs {
		sys := label(g.System)
		if out[g.Level] == nil {
			out[g.Level] = map[string]map[string]entry{}
		}
		if out[g.Level][sys] == nil {
			out[g.Level][sys] = map[string]entry{}
		}
		for i, k := range g.Keys {
			e := entry{split: g.Split, vals: map[string]float64{}}
			for c, name := range g.Criteria {
				if v := g.Values[c][i]; !math.IsNaN(v) {
					e.vals[name] = v
				}
			}
			out[g.Level][sys][k] = e
		}
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// values returns an entry's values in column order, with its Overall last.
func (e entry) values(crit []string, withOverall bool) []float64 {
	row := make([]float64, len(crit))
	var sum float64
	var n int
	for i, c := range crit {
		v, ok := e.vals[c]
		if !ok {
			v = math.NaN()
		} else {
			sum += v
			n++
		}
		row[i] = v
	}
	if withOverall {
		row[len(crit)-1] = math.NaN()
		if n > 0 {
			row[len(crit)-1] = sum / float64(n)
		}
	}
	return row
}

// pairedRows builds one row per split of A (in paper order) plus "all".
func pairedRows(sys string, a, b map[string]entry, crit []string, withOverall bool, opts Options) []PairedRow {
	type matched struct{ a, b []float64 }
	bySplit := map[string][]matched{}
	for _, k := range sortedKeys(a) {
		eb, ok := b[k]
		if !ok {
			continue
		}
		ea := a[k]
		m := matched{ea.values(crit, withOverall), eb.values(crit, withOverall)}
		bySplit[ea.split] = append(bySplit[ea.split], m)
		if len(bySplit) > 0 && ea.split != "all" {
			bySplit["all"] = append(bySplit["all"], m)
		}
	}
	splits := sortedKeys(bySplit)
	sort.SliceStable(splits, func(x, y int) bool { return SplitLess(splits[x], splits[y]) })
	if len(splits) == 2 && splits[1] == "all" {
		splits = splits[:1] // one split only: "all" would say the same
	}
	var rows []PairedRow
	for _, sp := range splits {
		ms := bySplit[sp]
		diff := make([][]float64, len(ms))
		for i, m := range ms {
			d := make([]float64, len(crit))
			for c := range crit {
				d[c] = m.a[c] - m.b[c] // NaN when either is missing
			}
			diff[i] = d
		}
		row := PairedRow{System: sys, Split: sp, N: len(ms), Cells: make([]PairedStat, len(crit))}
		var lo, hi []float64
		if opts.Resamples > 0 {
			lo, hi = Bootstrap(diff, len(crit), opts.Resamples, opts.Seed, opts.Confidence)
		}
		col, ca, cb := make([]float64, len(ms)), make([]float64, len(ms)), make([]float64, len(ms))
		for c := range crit {
			for i, m := range ms {
				col[i] = diff[i][c]
				ca[i], cb[i] = math.NaN(), math.NaN()
				if !math.IsNaN(col[i]) {
					ca[i], cb[i] = m.a[c], m.b[c]
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
			if lo != nil {
				ps.CILow, ps.CIHigh = lo[c], hi[c]
			}
			row.Cells[c] = ps
		}
		rows = append(rows, row)
	}
	return rows
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
