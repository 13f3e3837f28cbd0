package report

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"math"
	"sort"
	"strings"
	"testing"

	"mascot.dev/mascot/results"
)

type jsonInts struct{ dst *[]int64 }

func (j jsonInts) Scan(v any) error {
	s, _ := v.(string)
	return json.Unmarshal([]byte(s), j.dst)
}

// fixtureA: four positive "mascot" episodes. Normalised (100·(s−1)/4):
//
//	empathy per episode (mean over turns): (100+50)/2=75, 75, 0, 25
//	consistency:                           75, 25, 50, 100
//	overall per episode:                   75, 50, 25, 62.5
//	fidelity (mean over judges):           87.5, 50, 50, 0
var fixtureA = []judged{
	{"c1", "mascot", "positive", []float64{5, 3}, 4, []float64{4, 5}},
	{"c2", "mascot", "positive", []float64{4}, 2, []float64{3}},
	{"c3", "mascot", "positive", []float64{1}, 3, []float64{3}},
	{"c4", "mascot", "positive", []float64{2}, 5, []float64{1}},
	{"n1", "mascot", "negative", []float64{3}, 3, []float64{3}},
}

// fixtureB: the same conversations; empathy 50, 75, 25, 0 (diffs A−B: 25,
// 0, −25, 25), consistency identical.
var fixtureB = []judged{
	{"c1", "mascot", "positive", []float64{3}, 4, []float64{4, 5}},
	{"c2", "mascot", "positive", []float64{4}, 2, []float64{3}},
	{"c3", "mascot", "positive", []float64{2}, 3, []float64{3}},
	{"c4", "mascot", "positive", []float64{1}, 5, []float64{1}},
}

func near(t *testing.T, what string, got, want float64) {
	t.Helper()
	if math.Abs(got-want) > 1e-9 {
		t.Errorf("%s = %.12g, want %.12g", what, got, want)
	}
}

// naiveBootstrapCI recomputes the documented procedure independently, one
// criterion at a time: PCG(seed, 0), two indices per output (low 32 bits,
// then high 32 bits, each as (h·n)>>32), type-7 quantiles.
func naiveBootstrapCI(xs []float64, b int, seed uint64, conf float64) (float64, float64) {
	draw := pcgIndices(seed, 0, len(xs))
	means := make([]float64, b)
	for r := range means {
		s := 0.0
		for range xs {
			s += xs[draw()]
		}
		means[r] = s / float64(len(xs))
	}
	sort.Float64s(means)
	q := func(p float64) float64 {
		h := float64(b-1) * p
		l := math.Floor(h)
		return means[int(l)] + (h-l)*(means[int(l)+1]-means[int(l)])
	}
	a := (1 - conf) / 2
	return q(a), q(1 - a)
}

func findRow(t *testing.T, rep *Report, level, system, split string) (Table, Row) {
	t.Helper()
	for _, tb := range rep.Tables {
		if tb.Level != level {
			continue
		}
		for _, r := range tb.Rows {
			if r.System == system && r.Split == split && r.Population == "" {
				return tb, r
			}
		}
	}
	t.Fatalf("no row %s/%s/%s", level, system, split)
	return Table{}, Row{}
}

func cell(t *testing.T, tb Table, r Row, crit string) Stat {
	t.Helper()
	for i, c := range tb.Criteria {
		if c == crit {
			return r.Cells[i]
		}
	}
	t.Fatalf("no column %s in %v", crit, tb.Criteria)
	return Stat{}
}

func TestReportNumbersAgainstHandComputed(t *testing.T) {
	s := openStore(t)
	addRun(t, s, "A", fixtureA)
	opts := Options{Resamples: 2000, Seed: 42}
	rep, err := Build(context.Background(), s, []string{"A"}, opts)
	if err != nil {
		t.Fatal(err)
	}
	tb, row := findRow(t, rep, results.LevelAgent, "mascot", "positive")
	if want := []string{"empathetic_support", "persona_consistency", Overall}; strings.Join(tb.Criteria, "|") != strings.Join(want, "|") {
		t.Fatalf("columns %v", tb.Criteria)
	}
	if row.N != 4 {
		t.Fatalf("n = %d", row.N)
	}
	emp, con, ov := cell(t, tb, row, "empathetic_support"), cell(t, tb, row, "persona_consistency"), cell(t, tb, row, Overall)
	near(t, "empathy mean", emp.Mean, 43.75)
	near(t, "empathy std", emp.Std, 37.5) // sqrt(4218.75/3)
	near(t, "consistency mean", con.Mean, 62.5)
	near(t, "consistency std", con.Std, math.Sqrt(3125.0/3))
	near(t, "overall mean", ov.Mean, 53.125)
	near(t, "overall std", ov.Std, math.Sqrt(1367.1875/3))
	for _, c := range []struct {
		name string
		st   Stat
		xs   []float64
	}{{"empathy", emp, []float64{75, 75, 0, 25}}, {"consistency", con, []float64{75, 25, 50, 100}}, {"overall", ov, []float64{75, 50, 25, 62.5}}} {
		lo, hi := naiveBootstrapCI(c.xs, 2000, 42, 0.95)
		near(t, c.name+" ci low", c.st.CILow, lo)
		near(t, c.name+" ci high", c.st.CIHigh, hi)
		if !(c.st.CILow < c.st.Mean && c.st.Mean < c.st.CIHigh) {
			t.Errorf("%s: mean %g outside CI [%g, %g]", c.name, c.st.Mean, c.st.CILow, c.st.CIHigh)
		}
	}
	tb, row = findRow(t, rep, results.LevelCollective, "mascot", "positive")
	fid := cell(t, tb, row, "fidelity")
	near(t, "fidelity mean", fid.Mean, 46.875)
	_, nrow := findRow(t, rep, results.LevelAgent, "mascot", "negative")
	if nrow.N != 1 || nrow.Cells[0].Std != 0 || nrow.Cells[0].Mean != 50 || nrow.Cells[0].CILow != 50 {
		t.Errorf("single-episode row %+v", nrow)
	}

	// The same seed gives the same bounds; another seed other bounds.
	again, _ := Build(context.Background(), s, []string{"A"}, opts)
	_, r2 := findRow(t, again, results.LevelAgent, "mascot", "positive")
	if r2.Cells[0] != row0(t, rep) {
		t.Error("bootstrap not reproducible with a fixed seed")
	}

	withAll, _ := Build(context.Background(), s, []string{"A"}, Options{All: true, Resamples: -1})
	tb, arow := findRow(t, withAll, results.LevelAgent, "mascot", "all")
	near(t, "all-split empathy mean", cell(t, tb, arow, "empathetic_support").Mean, (75+75+0+25+50)/5.0)
	if !math.IsNaN(arow.Cells[0].CILow) {
		t.Error("CI computed with Resamples < 0")
	}
}

func TestBootstrapSeedAndMissing(t *testing.T) {
	xs := make([][]float64, 50)
	col := make([]float64, 50)
	for i := range xs {
		v := float64((i * 37) % 101)
		xs[i] = []float64{v, math.NaN()}
		col[i] = v
	}
	lo1, hi1 := Bootstrap(xs, 2, 500, 1, 0.95)
	lo2, hi2 := Bootstrap(xs, 2, 500, 2, 0.95)
	if lo1[0] == lo2[0] && hi1[0] == hi2[0] {
		t.Error("seed has no effect")
	}
	wl, wh := naiveBootstrapCI(col, 500, 1, 0.95)
	near(t, "lo", lo1[0], wl)
	near(t, "hi", hi1[0], wh)
	if !math.IsNaN(lo1[1]) || !math.IsNaN(hi1[1]) {
		t.Error("CI of an empty column")
	}
	_, mean, _ := MeanStd(col)
	if !(lo1[0] < mean && mean < hi1[0]) {
		t.Errorf("mean %g outside [%g, %g]", mean, lo1[0], hi1[0])
	}
	near(t, "quantile", Quantile([]float64{1, 2, 3, 4}, 0.5), 2.5)
	near(t, "quantile low", Quantile([]float64{1, 2, 3, 4}, 0.025), 1.075)
}

func row0(t *testing.T, rep *Report) Stat {
	_, r := findRow(t, rep, results.LevelAgent, "mascot", "positive")
	return r.Cells[0]
}

func TestCompareHandComputed(t *testing.T) {
	s := openStore(t)
	addRun(t, s, "A", fixtureA)
	addRun(t, s, "B", fixtureB)
	cmp, err := Compare(context.Background(), s, "A", "B", Options{Resamples: 1000, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	if cmp.Pairing != "system+conv_id+sample" {
		t.Fatalf("pairing %s", cmp.Pairing)
	}
	var agent PairedTable
	for _, p := range cmp.Paired {
		if p.Level == results.LevelAgent {
			agent = p
		}
	}
	if len(agent.Rows) != 1 || agent.Rows[0].Split != "positive" || agent.Rows[0].N != 4 {
		t.Fatalf("rows %+v", agent.Rows)
	}
	emp := agent.Rows[0].Cells[0]
	near(t, "mean A", emp.MeanA, 43.75)
	near(t, "mean B", emp.MeanB, 37.5)
	near(t, "mean diff", emp.MeanDiff, 6.25)
	near(t, "sd diff", emp.SDDiff, math.Sqrt(1718.75/3))
	near(t, "d_z", emp.Dz, 6.25/math.Sqrt(1718.75/3))
	lo, hi := naiveBootstrapCI([]float64{25, 0, -25, 25}, 1000, 3, 0.95)
	near(t, "diff ci low", emp.CILow, lo)
	near(t, "diff ci high", emp.CIHigh, hi)
	con := agent.Rows[0].Cells[1]
	if con.MeanDiff != 0 || con.SDDiff != 0 || !math.IsNaN(con.Dz) {
		t.Errorf("identical criterion: %+v", con)
	}
}

func TestWinRatesWilson(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	if err := s.CreateRun(ctx, results.Run{ID: "W"}); err != nil {
		t.Fatal(err)
	}
	choices := append(append(repeat("mascot", 7), repeat("zero-shot", 2)...), results.Tie)
	err := s.CommitUnit(ctx, results.Unit{Fingerprint: "cmp", Kind: "judge", StageKey: "cmp", RunID: "W"}, func(tx *results.Tx) error {
		for i, c := range choices {
			sys := []string{"mascot", "zero-shot"}
			if i%2 == 1 {
				sys = []string{"zero-shot", "mascot"}
			}
			if _, err := tx.InsertComparison(results.Comparison{Judge: "gpt-4o", ContextID: "x", Systems: sys, Choice: c}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.AddHumanPreferences(ctx, []results.HumanPreference{
		{RunID: "W", RaterID: "r1", Systems: []string{"mascot", "few-shot", "sft"}, Choice: "mascot"},
		{RunID: "W", RaterID: "r2", Systems: []string{"sft", "mascot", "few-shot"}, Choice: "mascot"},
		{RunID: "W", RaterID: "r2", Systems: []string{"few-shot", "sft", "mascot"}, Choice: "sft"},
	})
	if err != nil {
		t.Fatal(err)
	}
	wr, err := WinRates(ctx, s, "W", 0.95)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]WinRate{}
	for _, w := range wr {
		got[w.Source+"/"+w.Kind+"/"+w.System] = w
	}
	m := got["gpt-4o/pairwise/mascot"]
	if m.Shown != 10 || m.Wins != 7 || m.Ties != 1 {
		t.Fatalf("%+v", m)
	}
	near(t, "rate", m.Rate, 0.7)
	near(t, "wilson low", m.CILow, 0.39677814746114537) // hand: (p+z²/2n ± z√(p(1−p)/n+z²/4n²))/(1+z²/n)
	near(t, "wilson high", m.CIHigh, 0.8922087325936989)
	h := got["human/three-way/mascot"]
	if h.Shown != 3 || h.Wins != 2 {
		t.Fatalf("%+v", h)
	}
	near(t, "human low", h.CILow, 0.2076596008020477)
	near(t, "human high", h.CIHigh, 0.9385080552796037)
}

func repeat(s string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = s
	}
	return out
}

func TestRenderers(t *testing.T) {
	s := openStore(t)
	addRun(t, s, "A", fixtureA)
	addRun(t, s, "B", fixtureB)
	rep, err := Build(context.Background(), s, []string{"A"}, Options{Resamples: 200})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := Render(&buf, rep, FormatText); err != nil {
		t.Fatal(err)
	}
	txt := buf.String()
	for _, want := range []string{"Per-agent criteria", "43.8 ± 37.5 [", "53.1 ± 21.3", "Collective criteria", "positive", "negative"} {
		if !strings.Contains(txt, want) {
			t.Errorf("text lacks %q:\n%s", want, txt)
		}
	}
	buf.Reset()
	Render(&buf, rep, FormatMarkdown)
	if !strings.Contains(buf.String(), "| System | Split | N | Empathetic Support Quality | Consistency (Persona) | Overall |") {
		t.Errorf("markdown:\n%s", buf.String())
	}
	buf.Reset()
	Render(&buf, rep, FormatCSV)
	recs, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, r := range recs[1:] {
		if r[2] == "agent" && r[4] == "positive" && r[5] == "empathetic_support" {
			found = r[7] == "43.75" && r[8] == "37.5" && r[6] == "4"
		}
	}
	if !found || strings.Join(recs[0], ",") != strings.Join(CSVHeader, ",") {
		t.Errorf("csv %v", recs)
	}
	buf.Reset()
	if err := Render(&buf, rep, FormatJSON); err != nil {
		t.Fatal(err)
	}
	var back struct {
		Tables []struct {
			Level string
			Rows  []struct {
				Split string
				Cells []struct {
					Mean *float64 `json:"mean"`
				}
			}
		}
	}
	if err := json.Unmarshal(buf.Bytes(), &back); err != nil || len(back.Tables) != 2 {
		t.Fatalf("json %v %s", err, buf.String())
	}
	if err := Render(&buf, rep, "xml"); err == nil {
		t.Error("unknown format accepted")
	}
	cmp, err := Compare(context.Background(), s, "A", "B", Options{Resamples: 100})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range Formats {
		buf.Reset()
		if err := RenderComparison(&buf, cmp, f); err != nil || buf.Len() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	buf.Reset()
	RenderComparison(&buf, cmp, FormatText)
	if !strings.Contains(buf.String(), "+6.2 [") && !strings.Contains(buf.String(), "+6.3 [") {
		t.Errorf("comparison text:\n%s", buf.String())
	}
}
