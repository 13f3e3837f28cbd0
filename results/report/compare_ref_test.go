package report

import (
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"mascot.dev/mascot/results"
)

// The pairing of Compare before it merged sorted keys (one map per
// episode), kept as the reference its results must equal.

// refEntry is one episode's values in one run.
type refEntry struct {
	split string
	vals  map[string]float64
}

// entries indexes groups as level → system label → pair key → refEntry.
func refEntries(gs []results.ScoreGroup, label func(string) string) map[string]map[string]map[string]refEntry {
	out := map[string]map[string]map[string]refEntry{}
	for _, g := range gs {
		sys := label(g.System)
		if out[g.Level] == nil {
			out[g.Level] = map[string]map[string]refEntry{}
		}
		if out[g.Level][sys] == nil {
			out[g.Level][sys] = map[string]refEntry{}
		}
		for i, k := range g.Keys {
			e := refEntry{split: g.Split, vals: map[string]float64{}}
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

// values returns an refEntry's values in column order, with its Overall last.
func (e refEntry) values(crit []string, withOverall bool) []float64 {
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

// pairedRows builds one row per split of A (in paper order) plus "all",
// without their confidence intervals: it returns one job per row for them.
func refPairedRows(sys string, a, b map[string]refEntry, crit []string, withOverall bool) ([]PairedRow, []pairedJob) {
	type matched struct {
		key  string
		a, b []float64
	}
	bySplit := map[string][]matched{}
	for _, k := range sortedKeys(a) {
		eb, ok := b[k]
		if !ok {
			continue
		}
		ea := a[k]
		m := matched{k, ea.values(crit, withOverall), eb.values(crit, withOverall)}
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
	var jobs []pairedJob
	for _, sp := range splits {
		ms := bySplit[sp]
		diff := make([][]float64, len(ms))
		keys := make([]string, len(ms))
		for i, m := range ms {
			d := make([]float64, len(crit))
			for c := range crit {
				d[c] = m.a[c] - m.b[c] // NaN when either is missing
			}
			diff[i], keys[i] = d, m.key
		}
		row := PairedRow{System: sys, Split: sp, N: len(ms), Cells: make([]PairedStat, len(crit))}
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
			row.Cells[c] = ps
		}
		jobs = append(jobs, pairedJob{sys: sys, split: sp, keys: keys, diff: diff, row: len(rows)})
		rows = append(rows, row)
	}
	return rows, jobs
}

// TestPairingEqualsMapPairing pairs groups with missing values, keys
// unmatched on either side, keys met twice in a run, criteria in different
// orders and several splits: the merge of sorted keys gives bit for bit
// the rows and differences of the map pairing.
func TestPairingEqualsMapPairing(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	mk := func(split string, crit []string, keys []string) results.ScoreGroup {
		g := results.ScoreGroup{Level: results.LevelAgent, System: "mascot", Split: split, Criteria: crit, Keys: keys}
		for range crit {
			vals := make([]float64, len(keys))
			for i := range vals {
				vals[i] = rng.Float64() * 100
				if rng.IntN(5) == 0 {
					vals[i] = math.NaN()
				}
			}
			g.Values = append(g.Values, vals)
		}
		return g
	}
	keys := func(from, to, step int) []string {
		var out []string
		for i := from; i < to; i += step {
			out = append(out, "c"+string(rune('a'+i%26))+string(rune('a'+i/26))+"#0")
		}
		return out
	}
	ga := []results.ScoreGroup{mk("positive", []string{"x", "y"}, keys(0, 300, 1)),
		mk("negative", []string{"y", "z"}, keys(250, 400, 2))} // 250..298: met twice
	gb := []results.ScoreGroup{mk("negative", []string{"z", "x", "Overall"}, keys(5, 380, 3)),
		mk("positive", []string{"x"}, keys(100, 200, 1))} // 101..197 step 3: met twice
	crit := []string{"x", "y", "z", Overall}
	label := func(s string) string { return s }
	ea, eb := entries(ga, label), entries(gb, label)
	ra, rb := refEntries(ga, label), refEntries(gb, label)
	for _, withOverall := range []bool{true, false} {
		c := crit
		if !withOverall {
			c = crit[:3]
		}
		rows, jobs := pairedRows("mascot", ea[results.LevelAgent]["mascot"], eb[results.LevelAgent]["mascot"], c, withOverall)
		wantRows, wantJobs := refPairedRows("mascot", ra[results.LevelAgent]["mascot"], rb[results.LevelAgent]["mascot"], c, withOverall)
		if len(rows) != len(wantRows) || len(jobs) != len(wantJobs) || len(rows) < 3 {
			t.Fatalf("%d rows %d jobs, want %d rows %d jobs (at least 3)", len(rows), len(jobs), len(wantRows), len(wantJobs))
		}
		for r := range rows {
			g, w := rows[r], wantRows[r]
			if g.Split != w.Split || g.N != w.N || len(g.Cells) != len(w.Cells) {
				t.Fatalf("row %d: %s n=%d, want %s n=%d", r, g.Split, g.N, w.Split, w.N)
			}
			for k := range g.Cells {
				if !sameBits(g.Cells[k], w.Cells[k]) {
					t.Fatalf("row %s cell %s: %+v, want %+v", g.Split, c[k], g.Cells[k], w.Cells[k])
				}
			}
			if !slices.Equal(jobs[r].keys, wantJobs[r].keys) {
				t.Fatalf("row %s: paired keys differ", g.Split)
			}
			for i := range jobs[r].diff {
				for k := range jobs[r].diff[i] {
					if math.Float64bits(jobs[r].diff[i][k]) != math.Float64bits(wantJobs[r].diff[i][k]) {
						t.Fatalf("row %s key %s: differences differ", g.Split, jobs[r].keys[i])
					}
				}
			}
		}
	}
}

func sameBits(a, b PairedStat) bool {
	f := []float64{a.MeanA, a.MeanB, a.MeanDiff, a.SDDiff, a.CILow, a.CIHigh, a.Dz}
	g := []float64{b.MeanA, b.MeanB, b.MeanDiff, b.SDDiff, b.CILow, b.CIHigh, b.Dz}
	for i := range f {
		if math.Float64bits(f[i]) != math.Float64bits(g[i]) {
			return false
		}
	}
	return a.N == b.N
}
