package report

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"mascot.dev/mascot/plugins/stats"
	"mascot.dev/mascot/results"
)

// JudgeTable is the several-judges view of one judged level of one run,
// present when two or more judges scored it: each judge's Overall per
// system × split side by side (the level's main table averages them), and
// how well the judges agree on the items they scored.
type JudgeTable struct {
	RunID string `json:"run_id"`
	Level string `json:"level"`
	Title string `json:"title"`
	// Judges are the judges compared, sorted: each stage judge, or, for a
	// plugin that pools several models ("<judge>/<model>" rows beside
	// its pooled "<judge>" ones), each model; pooled rows are not a judge
	// of their own (judgeColumns).
	Judges []string `json:"judges"`
	// Rows: Cells align with Judges; a cell is that judge's Overall (the
	// mean of its criteria for an episode, the episode's turns or agents
	// averaged first, on 0..100) over the row's episodes, mean ± std with
	// the same bootstrap CI as the main tables.
	Rows []Row `json:"rows"`
	// Agreement has one entry per criterion, in the rubric's order, then
	// one for Overall (each item's mean over the criteria a judge scored).
	Agreement []JudgeAgreement `json:"agreement"`
}

// JudgeAgreement is the inter-judge agreement on one criterion, over the
// items (turns, agents of an episode, or episodes) of the level that at
// least two judges scored.
type JudgeAgreement struct {
	Criterion string `json:"criterion"`
	Items     int    `json:"items"`  // items with at least two judges' scores
	Values    int    `json:"values"` // their scores: Krippendorff's pairable values
	// Alpha is Krippendorff's α with the interval distance on the
	// normalised scores; NaN (null in JSON) where undefined (no
	// variation, or fewer than two pairable values).
	Alpha float64     `json:"-"`
	Pairs []JudgePair `json:"pairs"`
}

// JudgePair is Spearman's rank correlation of two judges' scores over the
// items both scored.
type JudgePair struct {
	A   string  `json:"a"`
	B   string  `json:"b"`
	N   int     `json:"n"`
	Rho float64 `json:"-"` // NaN (null in JSON) where undefined
}

// MarshalJSON writes an undefined alpha as null.
func (a JudgeAgreement) MarshalJSON() ([]byte, error) {
	type plain JudgeAgreement
	return json.Marshal(struct {
		plain
		Alpha num `json:"alpha_interval"`
	}{plain(a), num(a.Alpha)})
}

// MarshalJSON writes an undefined rho as null.
func (p JudgePair) MarshalJSON() ([]byte, error) {
	type plain JudgePair
	return json.Marshal(struct {
		plain
		Rho num `json:"spearman_rho"`
	}{plain(p), num(p.Rho)})
}

var judgeTitles = map[string]string{
	results.LevelAgent:      "Per-agent Overall by judge (0-100)",
	results.LevelCollective: "Collective Overall by judge (0-100)",
}

// runJudgeTables returns a run's judge tables: from the report cache
// unless opts scope the report to units or ask for no cache.
func runJudgeTables(ctx context.Context, st *results.Store, id string, opts Options) ([]JudgeTable, error) {
	compute := func() ([]JudgeTable, error) {
		scope := results.Scope{Units: opts.Units, IncludeTraining: opts.IncludeTraining}
		// A level's table needs two judges; with fewer in the whole run
		// no level has one, and neither the rows nor the groups need be
		// read (computed afresh, the groups are a second scan of the run).
		names, err := st.RunJudges(ctx, id, scope)
		if err != nil {
			return nil, err
		}
		set := map[string]bool{}
		for _, n := range names {
			set[n] = true
		}
		if cols, _ := judgeColumns(set); len(cols) < 2 {
			return nil, nil
		}
		groups, err := runGroups(ctx, st, id, opts, true)
		if err != nil {
			return nil, err
		}
		scores, err := st.JudgeScores(ctx, id, scope)
		if err != nil {
			return nil, err
		}
		return judgeTablesOf(id, groups, scores, opts), nil
	}
	if opts.Units != nil || opts.NoCache {
		return compute()
	}
	return Cached(ctx, st, CacheKey("judges/2", opts, id), []string{id}, compute)
}

// judgeColumns decides which row judges are the judges compared and under
// which name: a plugin that pools several models (rows "X/m1", "X/m2"
// beside the pooled "X") is one judge per model; a plugin with one model
// (rows "X/m" and "X", the same scores) is one judge named X; a judge
// without model rows is itself. It returns the sorted column names and,
// for each row judge read, its column.
func judgeColumns(names map[string]bool) ([]string, map[string]string) {
	children := map[string][]string{}
	parent := map[string]string{}
	for n := range names {
		if p, _, ok := strings.Cut(n, "/"); ok && names[p] {
			children[p] = append(children[p], n)
			parent[n] = p
		}
	}
	of := map[string]string{}
	for n := range names {
		switch p, isChild := parent[n]; {
		case isChild && len(children[p]) > 1:
			of[n] = n
		case isChild: // the only model of pool p: p's rows stand for it
		case len(children[n]) > 1: // a pool of several models
		default:
			of[n] = n
		}
	}
	cols := make([]string, 0, len(of))
	for _, c := range of {
		cols = append(cols, c)
	}
	sort.Strings(cols)
	return cols, of
}

// itemKey identifies a judged item within a level.
type itemKey struct {
	episode int64
	item    string
}

// judgeTablesOf builds a run's judge tables from its score groups (which
// say which episodes the report covers, in their rows) and the judge
// scores. A level gets a table when at least two judges scored it.
func judgeTablesOf(runID string, groups []results.ScoreGroup, scores []results.JudgeScore, opts Options) []JudgeTable {
	opts = opts.withDefaults()
	if opts.All {
		groups = append(groups, mergeSplits(groups)...)
	}
	var out []JudgeTable
	for _, lv := range []string{results.LevelAgent, results.LevelCollective} {
		covered := map[int64]bool{}
		for _, g := range groups {
			if g.Level == lv {
				for _, e := range g.Episodes {
					covered[e] = true
				}
			}
		}
		names := map[string]bool{}
		var mine []results.JudgeScore
		for _, s := range scores {
			if s.Level == lv && covered[s.Episode] {
				mine = append(mine, s)
				names[s.Judge] = true
			}
		}
		judges, columnOf := judgeColumns(names)
		if len(judges) < 2 {
			continue
		}
		jt := JudgeTable{RunID: runID, Level: lv, Title: judgeTitles[lv], Judges: judges}
		// value[criterion][item][judge]; per episode, per judge: the
		// sums that give the judge's criterion means over the episode.
		col := map[string]int{}
		for i, j := range judges {
			col[j] = i
		}
		value := map[string]map[itemKey][]float64{}
		for _, s := range mine {
			name, ok := columnOf[s.Judge]
			if !ok {
				continue // a pool of several models, or a lone model's copy
			}
			k := col[name]
			byItem := value[s.Criterion]
			if byItem == nil {
				byItem = map[itemKey][]float64{}
				value[s.Criterion] = byItem
			}
			v := byItem[itemKey{s.Episode, s.Item}]
			if v == nil {
				v = nanRow(len(judges))
				byItem[itemKey{s.Episode, s.Item}] = v
			}
			v[k] = s.Value
		}
		jt.Rows = judgeRows(lv, groups, value, len(judges), opts)
		jt.Agreement = agreementOf(value, judges)
		out = append(out, jt)
	}
	return out
}

func nanRow(n int) []float64 {
	r := make([]float64, n)
	for i := range r {
		r[i] = math.NaN()
	}
	return r
}

// judgeRows computes, for each group of the level, each judge's Overall
// per episode (criterion means over the episode's items, then their mean)
// and its statistics.
func judgeRows(lv string, groups []results.ScoreGroup, value map[string]map[itemKey][]float64, nj int, opts Options) []Row {
	type acc struct{ sum, n []float64 }
	perEp := map[int64]map[string]*acc{} // episode -> criterion -> per-judge sums
	for crit, byItem := range value {
		// Items in content order: a criterion's sum over an episode's
		// items is then the same float64 however the rows were stored
		// (and whatever order the map gives).
		for _, k := range sortedItems(byItem) {
			v := byItem[k]
			m := perEp[k.episode]
			if m == nil {
				m = map[string]*acc{}
				perEp[k.episode] = m
			}
			a := m[crit]
			if a == nil {
				a = &acc{make([]float64, nj), make([]float64, nj)}
				m[crit] = a
			}
			for j, x := range v {
				if !math.IsNaN(x) {
					a.sum[j] += x
					a.n[j]++
				}
			}
		}
	}
	overall := func(ep int64) []float64 {
		row := nanRow(nj)
		crits := make([]string, 0, len(perEp[ep]))
		for c := range perEp[ep] {
			crits = append(crits, c)
		}
		sort.Slice(crits, func(a, b int) bool { return results.CriterionLess(crits[a], crits[b]) })
		for j := range row {
			var s float64
			var n int
			for _, c := range crits {
				if a := perEp[ep][c]; a.n[j] > 0 {
					s += a.sum[j] / a.n[j]
					n++
				}
			}
			if n > 0 {
				row[j] = s / float64(n)
			}
		}
		return row
	}
	var gs []results.ScoreGroup
	for _, g := range groups {
		if g.Level == lv {
			gs = append(gs, g)
		}
	}
	sort.SliceStable(gs, func(a, b int) bool {
		if gs[a].Population != gs[b].Population {
			return gs[a].Population < gs[b].Population
		}
		if gs[a].System != gs[b].System {
			return gs[a].System < gs[b].System
		}
		return SplitLess(gs[a].Split, gs[b].Split)
	})
	rows := make([]Row, len(gs))
	for i, g := range gs {
		m, keys := judgeMatrix(g, overall)
		rows[i] = Row{System: g.System, Split: g.Split, Population: g.Population, N: len(g.Episodes), Cells: statsOf(m, nj)}
		if opts.Resamples > 0 {
			// As the main tables: rows in content order, the bootstrap's
			// stream seeded from the episodes' keys (canonical.go).
			lo, hi := BootstrapStream(m, nj, opts.Resamples, opts.Seed, drawStream(keys), opts.Confidence)
			for k := range rows[i].Cells {
				rows[i].Cells[k].CILow, rows[i].Cells[k].CIHigh = lo[k], hi[k]
			}
		}
	}
	return rows
}

// agreementOf computes, per criterion and for Overall, Krippendorff's
// interval alpha and each pair's Spearman rho over the items, taken in
// the order of their content keys so the sums do not depend on how the
// rows were stored.
func agreementOf(value map[string]map[itemKey][]float64, judges []string) []JudgeAgreement {
	crits := make([]string, 0, len(value))
	for c := range value {
		crits = append(crits, c)
	}
	sort.Slice(crits, func(a, b int) bool { return results.CriterionLess(crits[a], crits[b]) })
	// Overall of an item per judge: the mean of the criteria it scored.
	overall := map[itemKey][]float64{}
	cnt := map[itemKey][]float64{}
	for _, c := range crits {
		for k, v := range value[c] {
			if overall[k] == nil {
				overall[k], cnt[k] = make([]float64, len(judges)), make([]float64, len(judges))
			}
			for j, x := range v {
				if !math.IsNaN(x) {
					overall[k][j] += x
					cnt[k][j]++
				}
			}
		}
	}
	for k, v := range overall {
		for j := range v {
			if cnt[k][j] == 0 {
				v[j] = math.NaN()
			} else {
				v[j] /= cnt[k][j]
			}
		}
	}
	out := make([]JudgeAgreement, 0, len(crits)+1)
	for _, c := range crits {
		out = append(out, agreeOn(c, value[c], judges))
	}
	return append(out, agreeOn(Overall, overall, judges))
}

func agreeOn(crit string, byItem map[itemKey][]float64, judges []string) JudgeAgreement {
	keys := sortedItems(byItem)
	a := JudgeAgreement{Criterion: crit}
	units := make([][]float64, 0, len(keys))
	for _, k := range keys {
		var u []float64
		for _, x := range byItem[k] {
			if !math.IsNaN(x) {
				u = append(u, x)
			}
		}
		if len(u) >= 2 {
			a.Items++
			units = append(units, u)
		}
	}
	var ok bool
	if a.Alpha, a.Values, ok = stats.KrippendorffAlphaInterval(units); !ok {
		a.Alpha = math.NaN()
	}
	for p := 0; p < len(judges); p++ {
		for q := p + 1; q < len(judges); q++ {
			var xs, ys []float64
			for _, k := range keys {
				v := byItem[k]
				if !math.IsNaN(v[p]) && !math.IsNaN(v[q]) {
					xs, ys = append(xs, v[p]), append(ys, v[q])
				}
			}
			rho, ok := stats.Spearman(xs, ys)
			if !ok {
				rho = math.NaN()
			}
			a.Pairs = append(a.Pairs, JudgePair{A: judges[p], B: judges[q], N: len(xs), Rho: rho})
		}
	}
	return a
}

// judgeTableTitle is a judge table's heading in text and markdown.
func judgeTableTitle(rep *Report, t JudgeTable) string {
	return fmt.Sprintf("%s — %s, mean ± std [%.0f%% bootstrap CI]", t.Title, runTitle(rep, t.RunID), 100*rep.Options.Confidence)
}

// sortedItems returns the items of byItem in content order: by item key,
// ties (two episodes with the same system, mode, conversation and sample)
// broken by the judges' scores, never by episode ids, which follow the
// order rows were stored in. Items tied on both are interchangeable.
func sortedItems(byItem map[itemKey][]float64) []itemKey {
	keys := make([]itemKey, 0, len(byItem))
	for k := range byItem {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b itemKey) int {
		if c := strings.Compare(a.item, b.item); c != 0 {
			return c
		}
		return slices.CompareFunc(byItem[a], byItem[b], cmpValue)
	})
	return keys
}

// judgeMatrix is a group's per-judge Overall rows in content order: by the
// episodes' pair keys, ties broken by the rows' values (as canonical
// orders the main tables' groups), with the keys in that order.
func judgeMatrix(g results.ScoreGroup, overall func(int64) []float64) ([][]float64, []string) {
	type row struct {
		key string
		v   []float64
	}
	rs := make([]row, len(g.Episodes))
	for e, ep := range g.Episodes {
		rs[e].v = overall(ep)
		if e < len(g.Keys) {
			rs[e].key = g.Keys[e]
		}
	}
	slices.SortStableFunc(rs, func(a, b row) int {
		if c := strings.Compare(a.key, b.key); c != 0 {
			return c
		}
		return slices.CompareFunc(a.v, b.v, cmpValue)
	})
	m := make([][]float64, len(rs))
	keys := make([]string, len(rs))
	for i, r := range rs {
		m[i], keys[i] = r.v, r.key
	}
	return m, keys
}
