package report

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sort"
	"sync"

	"mascot.dev/mascot/results"
)

// Overall is the name of the column holding the mean of the criteria.
const Overall = "Overall"

// Options control how tables are computed.
type Options struct {
	SplitBy    string  `json:"split_by"`   // auto (default): valence, else domain | valence | domain | none
	Resamples  int     `json:"resamples"`  // bootstrap resamples B; 0 = 1000, negative = no CIs
	Seed       uint64  `json:"seed"`       // bootstrap seed; 0 = 1
	Confidence float64 `json:"confidence"` // 0 = 0.95
	All        bool    `json:"all"`        // add a split "all" row per system
	// Units, when non-nil, restricts the report to the judgments,
	// comparisons and metrics recorded by these unit fingerprints (say, a
	// pipeline's evaluation stages): a row's N is then the episodes
	// actually scored at its level, and human preferences (which no unit
	// records) are left out. Nil: everything of the run.
	Units []string `json:"units,omitempty"`
	// IncludeTraining adds rows for the run's training-time episodes
	// (results.TrainingModes), labelled with their mode (Row.Population)
	// and never pooled with the evaluation rows. Without it, and without
	// Units, a report covers the run's evaluation episodes only.
	IncludeTraining bool `json:"include_training,omitempty"`
	// NoCache computes afresh, neither reading nor storing the report
	// cache (Cached), which otherwise serves a run's tables and score
	// groups and a comparison's paired tables while their runs' data is
	// unchanged. Reports scoped to Units are never cached.
	NoCache bool `json:"-"`
}

func (o Options) withDefaults() Options {
	if o.SplitBy == "" {
		o.SplitBy = "auto"
	}
	if o.Resamples == 0 {
		o.Resamples = 1000
	}
	if o.Seed == 0 {
		o.Seed = 1
	}
	if o.Confidence == 0 {
		o.Confidence = 0.95
	}
	return o
}

// RunInfo identifies a run in a report.
type RunInfo struct {
	ID         string `json:"id"`
	Name       string `json:"name"`
	ConfigName string `json:"config_name"`
	Status     string `json:"status"`
}

// Report is the set of tables `mascot report RUN...` prints.
type Report struct {
	Options  Options   `json:"options"`
	Runs     []RunInfo `json:"runs"`
	Tables   []Table   `json:"tables"`
	WinRates []WinRate `json:"win_rates,omitempty"`
	// Judges holds, for each judged level that two or more judges
	// scored, each judge's Overall and the inter-judge agreement.
	Judges []JudgeTable `json:"judges,omitempty"`
	// CrossRun holds the human ratings across runs that involve these
	// runs (nil when there are none, or when Options.Units scopes the
	// report, since no unit records them).
	CrossRun *CrossRun `json:"cross_run,omitempty"`
}

// Table is one level (per-agent, collective or metrics) of one run.
type Table struct {
	RunID    string   `json:"run_id"`
	Level    string   `json:"level"`
	Title    string   `json:"title"`
	Criteria []string `json:"criteria"` // column order; "Overall" last for judged levels
	Rows     []Row    `json:"rows"`
}

// Row is one system × split of a table; Cells align with Table.Criteria.
type Row struct {
	System string `json:"system"`
	Split  string `json:"split"`
	// Population is empty for evaluation episodes, else the training mode
	// of the row's episodes ("independent", "branching").
	Population string `json:"population,omitempty"`
	N          int    `json:"n"` // episodes
	Cells      []Stat `json:"cells"`
}

var levelTitles = map[string]string{
	results.LevelAgent:      "Per-agent criteria (0-100)",
	results.LevelCollective: "Collective criteria (0-100)",
	results.LevelMetric:     "Metrics",
}

// Build computes the report of one or more runs.
func Build(ctx context.Context, st *results.Store, runIDs []string, opts Options) (*Report, error) {
	opts = opts.withDefaults()
	rep := &Report{Options: opts}
	for _, id := range runIDs {
		run, err := st.GetRun(ctx, id)
		if err != nil {
			return nil, fmt.Errorf("building report: %w", err)
		}
		rep.Runs = append(rep.Runs, RunInfo{ID: run.ID, Name: run.Name, ConfigName: run.ConfigName, Status: run.Status})
		tables, err := runTables(ctx, st, id, opts)
		if err != nil {
			return nil, fmt.Errorf("building report: %w", err)
		}
		rep.Tables = append(rep.Tables, tables...)
		judges, err := runJudgeTables(ctx, st, id, opts)
		if err != nil {
			return nil, fmt.Errorf("building report: %w", err)
		}
		rep.Judges = append(rep.Judges, judges...)
		training, err := st.CoversTraining(ctx, id, results.Scope{Units: opts.Units, IncludeTraining: opts.IncludeTraining})
		if err != nil {
			return nil, fmt.Errorf("building report: %w", err)
		}
		wr, err := winRatesIn(ctx, st, id, opts.Confidence, opts.Units, training)
		if err != nil {
			return nil, err
		}
		rep.WinRates = append(rep.WinRates, wr...)
	}
	if opts.Units == nil {
		cr, err := CrossRunRatings(ctx, st, runIDs, opts.Confidence)
		if err != nil {
			return nil, fmt.Errorf("building report: %w", err)
		}
		rep.CrossRun = cr
	}
	return rep, nil
}

// runTables returns the tables of one run: from the report cache unless
// opts scope the report to units or ask for no cache.
func runTables(ctx context.Context, st *results.Store, id string, opts Options) ([]Table, error) {
	compute := func() ([]Table, error) {
		groups, err := runGroups(ctx, st, id, opts, true)
		if err != nil {
			return nil, err
		}
		return tablesOf(id, groups, opts), nil
	}
	if opts.Units != nil || opts.NoCache {
		return compute()
	}
	return Cached(ctx, st, CacheKey("tables/2", opts, id), []string{id}, compute)
}

// runGroups returns the score groups of one run: from the report cache
// unless opts scope them to units or ask for no cache. The tables of
// other options (seed, resamples, confidence) and comparisons with the run
// start from them. Groups it computes are stored only when store.
func runGroups(ctx context.Context, st *results.Store, id string, opts Options, store bool) ([]results.ScoreGroup, error) {
	opts = opts.withDefaults()
	scope := results.Scope{Units: opts.Units, IncludeTraining: opts.IncludeTraining}
	compute := func() (storedGroups, error) { return st.ScoreGroupsIn(ctx, id, opts.SplitBy, scope) }
	if opts.Units != nil || opts.NoCache {
		return compute()
	}
	key := fmt.Sprintf("groups/2 runs=%q split=%q training=%t", []string{id}, opts.SplitBy, opts.IncludeTraining)
	return cached(ctx, st, key, []string{id}, compute, store)
}

// tablesOf turns a run's score groups into one table per level.
func tablesOf(runID string, groups []results.ScoreGroup, opts Options) []Table {
	if opts.All {
		groups = append(groups, mergeSplits(groups)...)
	}
	canon := make([]results.ScoreGroup, len(groups))
	for i, g := range groups {
		canon[i] = canonical(g)
	}
	groups = canon
	byLevel := map[string][]results.ScoreGroup{}
	var levels []string
	for _, g := range groups {
		if _, ok := byLevel[g.Level]; !ok {
			levels = append(levels, g.Level)
		}
		byLevel[g.Level] = append(byLevel[g.Level], g)
	}
	sort.Slice(levels, func(a, b int) bool { return levelRank(levels[a]) < levelRank(levels[b]) })
	var out []Table
	var cells []cellJob
	for _, lv := range levels {
		gs := byLevel[lv]
		sort.Slice(gs, func(a, b int) bool {
			if gs[a].Population != gs[b].Population {
				return gs[a].Population < gs[b].Population // evaluation ("") first
			}
			if gs[a].System != gs[b].System {
				return gs[a].System < gs[b].System
			}
			return SplitLess(gs[a].Split, gs[b].Split)
		})
		t := Table{RunID: runID, Level: lv, Title: levelTitles[lv], Criteria: unionCriteria(gs)}
		withOverall := lv != results.LevelMetric
		if withOverall {
			t.Criteria = append(t.Criteria, Overall)
		}
		t.Rows = make([]Row, len(gs))
		out = append(out, t)
		for i := range gs {
			cells = append(cells, cellJob{g: gs[i], cols: t.Criteria, withOverall: withOverall, row: &out[len(out)-1].Rows[i]})
		}
	}
	batches := shareDraws(cells)
	parallel(len(batches), func(i int) { rowsOf(batches[i], opts) })
	return out
}

// cellJob is one row of a table to compute.
type cellJob struct {
	g           results.ScoreGroup
	cols        []string
	withOverall bool
	row         *Row
}

// shareDraws batches the rows whose groups hold the same episodes (the
// per-agent, collective and metrics rows of one system × split, usually):
// the bootstrap's draws depend only on the number of episodes and the
// seed, so one pass of draws serves every column of the batch, with the
// very numbers separate passes give.
func shareDraws(cells []cellJob) [][]cellJob {
	type key struct{ population, system, split string }
	var out [][]cellJob
	at := map[key][]int{}
	for _, c := range cells {
		k := key{c.g.Population, c.g.System, c.g.Split}
		placed := false
		for _, b := range at[k] {
			if slices.Equal(out[b][0].g.Episodes, c.g.Episodes) {
				out[b] = append(out[b], c)
				placed = true
				break
			}
		}
		if !placed {
			at[k] = append(at[k], len(out))
			out = append(out, []cellJob{c})
		}
	}
	return out
}

// rowsOf computes the rows of a batch, with one bootstrap over all their
// columns side by side.
func rowsOf(batch []cellJob, opts Options) {
	mats := make([][][]float64, len(batch))
	width := 0
	for i, c := range batch {
		mats[i] = sampleMatrix(c.g, c.cols, c.withOverall)
		*c.row = Row{System: c.g.System, Split: c.g.Split, Population: c.g.Population, N: len(c.g.Episodes),
			Cells: statsOf(mats[i], len(c.cols))}
		width += len(c.cols)
	}
	if opts.Resamples <= 0 {
		return
	}
	n := len(batch[0].g.Episodes)
	wide := make([][]float64, n)
	flat := make([]float64, n*width)
	for r := range wide {
		row := flat[r*width : r*width : (r+1)*width]
		for _, m := range mats {
			row = append(row, m[r]...)
		}
		wide[r] = row
	}
	lo, hi := BootstrapStream(wide, width, opts.Resamples, opts.Seed, drawStream(batch[0].g.Keys), opts.Confidence)
	off := 0
	for _, c := range batch {
		for k := range c.row.Cells {
			c.row.Cells[k].CILow, c.row.Cells[k].CIHigh = lo[off+k], hi[off+k]
		}
		off += len(c.cols)
	}
}

func levelRank(l string) int {
	switch l {
	case results.LevelAgent:
		return 0
	case results.LevelCollective:
		return 1
	case results.LevelMetric:
		return 2
	}
	return 3
}

var splitRank = map[string]int{"positive": 1, "negative": 2, "neutral": 3, "all": 100}

// SplitLess orders splits as the paper does (positive, negative, neutral),
// domains alphabetically, "all" last.
func SplitLess(a, b string) bool {
	ra, rb := splitRank[a], splitRank[b]
	if ra == 0 {
		ra = 50
	}
	if rb == 0 {
		rb = 50
	}
	if ra != rb {
		return ra < rb
	}
	return a < b
}

func unionCriteria(gs []results.ScoreGroup) []string {
	seen := map[string]bool{}
	var out []string
	for _, g := range gs {
		for _, c := range g.Criteria {
			if !seen[c] {
				seen[c] = true
				out = append(out, c)
			}
		}
	}
	sort.SliceStable(out, func(a, b int) bool { return results.CriterionLess(out[a], out[b]) })
	return out
}

// sampleMatrix lays a group out as rows of values aligned to cols (NaN when
// missing), with the per-row Overall in the last column when asked.
func sampleMatrix(g results.ScoreGroup, cols []string, withOverall bool) [][]float64 {
	src := make([]int, len(cols))
	for i, c := range cols {
		src[i] = -1
		for j, gc := range g.Criteria {
			if gc == c {
				src[i] = j
			}
		}
	}
	rows := make([][]float64, len(g.Episodes))
	flat := make([]float64, len(g.Episodes)*len(cols))
	for i := range rows {
		row := flat[i*len(cols) : (i+1)*len(cols)]
		var sum float64
		var n int
		for c := range cols {
			row[c] = math.NaN()
			if src[c] >= 0 {
				row[c] = g.Values[src[c]][i]
				if !math.IsNaN(row[c]) {
					sum += row[c]
					n++
				}
			}
		}
		if withOverall && n > 0 {
			row[len(cols)-1] = sum / float64(n)
		}
		rows[i] = row
	}
	return rows
}

// statsOf computes per-column count, mean and std of a sample matrix; the
// CIs are left NaN for rowsOf's bootstrap.
func statsOf(m [][]float64, cols int) []Stat {
	cells := make([]Stat, cols)
	col := make([]float64, len(m))
	for c := range cells {
		for i, r := range m {
			col[i] = r[c]
		}
		n, mean, std := MeanStd(col)
		cells[c] = Stat{N: n, Mean: mean, Std: std, CILow: math.NaN(), CIHigh: math.NaN()}
	}
	return cells
}

// mergeSplits builds, per (level, population, system), a group "all" of
// every split.
func mergeSplits(groups []results.ScoreGroup) []results.ScoreGroup {
	type key struct{ level, population, system string }
	merged := map[key]*results.ScoreGroup{}
	var order []key
	for _, g := range groups {
		k := key{g.Level, g.Population, g.System}
		m, ok := merged[k]
		if !ok {
			m = &results.ScoreGroup{Level: g.Level, System: g.System, Split: "all", Population: g.Population}
			merged[k] = m
			order = append(order, k)
		}
		m.Criteria = unionCriteria([]results.ScoreGroup{*m, g})
		m.Episodes = append(m.Episodes, g.Episodes...)
		m.Keys = append(m.Keys, g.Keys...)
	}
	// Fill values column by column from the source groups.
	for _, k := range order {
		m := merged[k]
		m.Values = make([][]float64, len(m.Criteria))
		for ci, c := range m.Criteria {
			for _, g := range groups {
				if g.Level != k.level || g.Population != k.population || g.System != k.system {
					continue
				}
				j := indexOf(g.Criteria, c)
				for i := range g.Episodes {
					v := math.NaN()
					if j >= 0 {
						v = g.Values[j][i]
					}
					m.Values[ci] = append(m.Values[ci], v)
				}
			}
		}
	}
	out := make([]results.ScoreGroup, len(order))
	for i, k := range order {
		out[i] = *merged[k]
	}
	return out
}

func indexOf(xs []string, x string) int {
	for i, v := range xs {
		if v == x {
			return i
		}
	}
	return -1
}

// parallel runs fn(0..n-1) on up to GOMAXPROCS goroutines.
func parallel(n int, fn func(i int)) {
	workers := min(runtime.GOMAXPROCS(0), n)
	var wg sync.WaitGroup
	next := make(chan int)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				fn(i)
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
}
