package judge_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"mascot.dev/mascot/internal/fakevllm"
	"mascot.dev/mascot/internal/testspec"
	"mascot.dev/mascot/results"
	"mascot.dev/mascot/results/report"
)

// How the second judge's scores differ from the first's, by criterion:
// reversed (6 − s), one higher (capped at 5), or the same.
var (
	reversedBy  = map[string]bool{"persona_consistency": true, "fidelity": true}
	shiftedBy   = map[string]bool{"empathetic_support": true, "relevance_coherence": true}
	criterionID = regexp.MustCompile(`\(id: ([a-z_]+)\)`)
)

// firstJudgeScore is the first fake judge's score of a judged text on a
// criterion: fixed by the text and the criterion, 1..5.
func firstJudgeScore(text, crit string) int {
	h := len(text)
	for _, r := range crit {
		h += int(r)
	}
	return 1 + h%5
}

// secondJudgeScore is the second judge's, from the first's.
func secondJudgeScore(first int, crit string) int {
	switch {
	case reversedBy[crit]:
		return 6 - first
	case shiftedBy[crit]:
		return min(5, first+1)
	}
	return first
}

// judgedText is what a rubric prompt asks to judge: the response of a turn
// item, or the conversation of an episode item.
func judgedText(user string) string {
	for _, h := range []string{"## Response to evaluate\n", "## Conversation to evaluate\n"} {
		if _, after, ok := strings.Cut(user, h); ok {
			return strings.TrimSpace(after)
		}
	}
	return user
}

// scoringJudge is a fake judge endpoint that scores every criterion of a
// rubric prompt with score(text, criterion).
func scoringJudge(t *testing.T, model string, score func(text, crit string) int) *fakevllm.Server {
	return fakevllm.Start(t, fakevllm.Options{Model: model, Reply: func(req fakevllm.Request) (string, bool) {
		if len(req.Messages) < 2 || !strings.Contains(req.Messages[0].Content, "impartial expert evaluator") {
			return "", false
		}
		text := judgedText(req.Messages[len(req.Messages)-1].Content)
		out := map[string]any{}
		for _, m := range criterionID.FindAllStringSubmatch(req.Messages[0].Content, -1) {
			out[m[1]] = map[string]any{"rationale": "known score", "score": score(text, m[1])}
		}
		b, _ := json.Marshal(out)
		return string(b), true
	}})
}

// TestTwoJudgesReportAgreementAndPerJudgeColumns runs two rubric judges,
// each on its own fake endpoint, over the same episodes, per agent and
// collectively; the second judge's scores differ from the first's in a
// known way. The report must carry each judge's Overall in a column of its
// own and, per criterion, Krippendorff's interval alpha and Spearman's rho,
// equal to what this test computes from the stored scores with its own
// code (a coincidence matrix, its own ranks), and to what the known
// differences imply exactly (rho = −1 where reversed, alpha = rho = 1
// where the same). Every format shows them.
func TestTwoJudgesReportAgreementAndPerJudgeColumns(t *testing.T) {
	gen := fakevllm.Start(t, fakevllm.Options{})
	gemma := scoringJudge(t, "google/gemma-3-27b-it", firstJudgeScore)
	phi := scoringJudge(t, "microsoft/phi-4", func(text, crit string) int {
		return secondJudgeScore(firstJudgeScore(text, crit), crit)
	})
	store, err := results.Open(filepath.Join(t.TempDir(), "m.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	l := testspec.Load(t, `package spec

import "mascot.dev/experiments/personas"

name: "test/two-judges"
datasets: test: {name: "esconv", path: "`+testspec.ESConv+`", limit: 3}
rosters: support: personas.emotional_support
endpoints: speaker: {urls: ["`+gen.URL()+`"], model: "Qwen/Qwen3-8B", retries: 2, timeout: "5s"}
endpoints: judge_gemma: {urls: ["`+gemma.URL()+`"], model: "google/gemma-3-27b-it", retries: 2, timeout: "5s", sampling: temperature: 0}
endpoints: judge_phi: {urls: ["`+phi.URL()+`"], model: "microsoft/phi-4", retries: 2, timeout: "5s", sampling: temperature: 0}
judges: gemma: {plugin: "rubric", endpoint: "judge_gemma"}
judges: phi4: {plugin: "rubric", endpoint: "judge_phi"}
stages: {
	eval: {kind: "episodes", mode: "eval", dataset: "test", roster: "support", director: "speaker", user: "speaker", samples_per_context: 2}
	judge_agent: {kind: "judge", items: "eval", level: "agent", judges: ["gemma", "phi4"]}
	judge_coll: {kind: "judge", items: "eval", level: "collective", judges: ["gemma", "phi4"]}
}
`)
	sum := execute(t, l, store)

	stored := storedScores(t, store)
	if len(stored) != 2 {
		t.Fatalf("judges stored: %v", mapKeys(stored))
	}
	for key, a := range stored["gemma"] {
		b, ok := stored["phi4"][key]
		if !ok {
			t.Fatalf("phi4 has no score of %v", key)
		}
		if want := secondJudgeScore(int(a), key.crit); b != float64(want) {
			t.Fatalf("%v: stored scores %v and %v, want the second %d", key, a, b, want)
		}
	}

	rep, err := report.Build(context.Background(), store, []string{sum.RunID}, report.Options{SplitBy: "none", Resamples: 200})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Judges) != 2 {
		t.Fatalf("report has %d judge tables, want 2 (per-agent, collective): %+v", len(rep.Judges), rep.Judges)
	}
	for _, jt := range rep.Judges {
		if !slices.Equal(jt.Judges, []string{"gemma", "phi4"}) {
			t.Fatalf("%s judge columns %v, want [gemma phi4]", jt.Level, jt.Judges)
		}
		checkPerJudgeColumns(t, store, jt, stored)
		checkAgreement(t, jt, stored)
	}
	checkFormats(t, rep)
}

// scoreKey is one judged item and criterion.
type scoreKey struct {
	level, crit string
	item        string // "t<turn id>" or "e<episode id>"
	episode     int64
}

// storedScores reads every judge's normalised scores, by item.
func storedScores(t *testing.T, store *results.Store) map[string]map[scoreKey]float64 {
	t.Helper()
	rows, err := store.Reader().Query(`SELECT j.judge, j.criterion, j.turn_id, COALESCE(j.episode_id, tu.episode_id), j.score
		FROM judgments j LEFT JOIN turns tu ON tu.id = j.turn_id WHERE j.judge NOT LIKE '%/%'`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]map[scoreKey]float64{}
	for rows.Next() {
		var judge, crit string
		var turn *int64
		var ep int64
		var s float64
		if err := rows.Scan(&judge, &crit, &turn, &ep, &s); err != nil {
			t.Fatal(err)
		}
		k := scoreKey{level: results.LevelCollective, crit: crit, item: fmt.Sprintf("e%d", ep), episode: ep}
		if turn != nil {
			k.level, k.item = results.LevelAgent, fmt.Sprintf("t%d", *turn)
		}
		if out[judge] == nil {
			out[judge] = map[scoreKey]float64{}
		}
		out[judge][k] = s
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func mapKeys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func norm(s float64) float64 { return 100 * (s - 1) / 4 }

// checkPerJudgeColumns: a judge's cell is the mean over episodes of its
// Overall: per episode, the mean over criteria of the criterion's mean
// over the episode's turns (one item for collective).
func checkPerJudgeColumns(t *testing.T, store *results.Store, jt report.JudgeTable, stored map[string]map[scoreKey]float64) {
	t.Helper()
	if len(jt.Rows) != 1 || jt.Rows[0].N != 6 {
		t.Fatalf("%s judge rows %+v, want one row of 6 episodes (3 contexts x 2 samples)", jt.Level, jt.Rows)
	}
	for j, judge := range jt.Judges {
		perEp := map[int64]map[string][]float64{}
		for k, s := range stored[judge] {
			if k.level != jt.Level {
				continue
			}
			if perEp[k.episode] == nil {
				perEp[k.episode] = map[string][]float64{}
			}
			perEp[k.episode][k.crit] = append(perEp[k.episode][k.crit], norm(s))
		}
		var total float64
		for _, crits := range perEp {
			var o float64
			for _, vs := range crits {
				var m float64
				for _, v := range vs {
					m += v
				}
				o += m / float64(len(vs))
			}
			total += o / float64(len(crits))
		}
		want := total / float64(len(perEp))
		c := jt.Rows[0].Cells[j]
		if len(perEp) != 6 || c.N != 6 || math.Abs(c.Mean-want) > 1e-9 {
			t.Errorf("%s %s: cell %+v over %d episodes, want mean %v over 6", jt.Level, judge, c, len(perEp), want)
		}
		if !(c.CILow <= c.Mean && c.Mean <= c.CIHigh) {
			t.Errorf("%s %s: CI [%v, %v] does not hold the mean %v", jt.Level, judge, c.CILow, c.CIHigh, c.Mean)
		}
	}
	if jt.Level == results.LevelAgent && jt.Rows[0].Cells[0].Mean == jt.Rows[0].Cells[1].Mean {
		t.Errorf("%s: both judges' columns are %v; the judges differ", jt.Level, jt.Rows[0].Cells[0].Mean)
	}
}

// checkAgreement recomputes alpha and rho per criterion and for Overall.
func checkAgreement(t *testing.T, jt report.JudgeTable, stored map[string]map[scoreKey]float64) {
	t.Helper()
	pairs := map[string][][2]float64{}  // criterion -> (gemma, phi4) per item
	overall := map[string]*[4]float64{} // item -> sums and counts of both
	var crits []string
	for k, a := range stored["gemma"] {
		if k.level != jt.Level {
			continue
		}
		b := stored["phi4"][k]
		if _, ok := pairs[k.crit]; !ok {
			crits = append(crits, k.crit)
		}
		pairs[k.crit] = append(pairs[k.crit], [2]float64{norm(a), norm(b)})
		o := overall[k.item]
		if o == nil {
			o = &[4]float64{}
			overall[k.item] = o
		}
		o[0] += norm(a)
		o[1] += norm(b)
		o[2]++
	}
	for _, o := range overall {
		pairs[report.Overall] = append(pairs[report.Overall], [2]float64{o[0] / o[2], o[1] / o[2]})
	}
	crits = append(crits, report.Overall)
	got := map[string]report.JudgeAgreement{}
	for _, a := range jt.Agreement {
		got[a.Criterion] = a
	}
	if len(got) != len(crits) {
		t.Fatalf("%s agreement on %d criteria, want %d (%v)", jt.Level, len(got), len(crits), crits)
	}
	for _, c := range crits {
		a, ok := got[c]
		if !ok {
			t.Fatalf("%s: no agreement on %s", jt.Level, c)
		}
		items := pairs[c]
		if a.Items != len(items) || a.Values != 2*len(items) || len(a.Pairs) != 1 || a.Pairs[0].N != len(items) {
			t.Errorf("%s %s: items %d, values %d, pairs %+v; want %d items", jt.Level, c, a.Items, a.Values, a.Pairs, len(items))
			continue
		}
		wantAlpha := alphaByCoincidence(items)
		wantRho := spearmanByRanks(items)
		if !close(a.Alpha, wantAlpha) || !close(a.Pairs[0].Rho, wantRho) {
			t.Errorf("%s %s: alpha %v rho %v, want %v and %v", jt.Level, c, a.Alpha, a.Pairs[0].Rho, wantAlpha, wantRho)
		}
		switch {
		case reversedBy[c] && a.Pairs[0].Rho != -1 && !math.IsNaN(a.Pairs[0].Rho):
			t.Errorf("%s %s: reversed scores, rho %v, want -1", jt.Level, c, a.Pairs[0].Rho)
		case !reversedBy[c] && !shiftedBy[c] && c != report.Overall && (!close(a.Alpha, 1) || !close(a.Pairs[0].Rho, 1)):
			t.Errorf("%s %s: identical scores, alpha %v rho %v, want 1 and 1", jt.Level, c, a.Alpha, a.Pairs[0].Rho)
		}
	}
}

func close(a, b float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b)
	}
	return math.Abs(a-b) < 1e-9
}

// alphaByCoincidence is Krippendorff's alpha with the interval metric
// from the coincidence matrix of two coders (every item has both):
// o_ck counts ordered pairs (c, k) within items, n_c = Σ_k o_ck,
// alpha = 1 − (n−1) Σ o_ck δ²_ck / Σ n_c n_k δ²_ck.
func alphaByCoincidence(items [][2]float64) float64 {
	o := map[[2]float64]float64{}
	nc := map[float64]float64{}
	for _, it := range items {
		// each item of m = 2 values adds 1/(m−1) = 1 per ordered pair
		o[[2]float64{it[0], it[1]}]++
		o[[2]float64{it[1], it[0]}]++
		nc[it[0]]++
		nc[it[1]]++
	}
	n := float64(2 * len(items))
	var do, de float64
	for ck, w := range o {
		d := ck[0] - ck[1]
		do += w * d * d
	}
	for c, a := range nc {
		for k, b := range nc {
			d := c - k
			de += a * b * d * d
		}
	}
	if de == 0 {
		return math.NaN()
	}
	return 1 - (n-1)*do/de
}

// spearmanByRanks is Pearson's r of the two columns' mid-ranks.
func spearmanByRanks(items [][2]float64) float64 {
	rank := func(col int) []float64 {
		out := make([]float64, len(items))
		for i, it := range items {
			less, equal := 0, 0
			for _, o := range items {
				switch {
				case o[col] < it[col]:
					less++
				case o[col] == it[col]:
					equal++
				}
			}
			out[i] = float64(less) + float64(equal+1)/2
		}
		return out
	}
	x, y := rank(0), rank(1)
	var mx, my float64
	for i := range x {
		mx += x[i] / float64(len(x))
		my += y[i] / float64(len(y))
	}
	var sxy, sxx, syy float64
	for i := range x {
		sxy += (x[i] - mx) * (y[i] - my)
		sxx += (x[i] - mx) * (x[i] - mx)
		syy += (y[i] - my) * (y[i] - my)
	}
	if sxx == 0 || syy == 0 {
		return math.NaN()
	}
	return sxy / math.Sqrt(sxx*syy)
}

// checkFormats: text and markdown show the judge columns and the
// agreement table, CSV its lines, JSON the values.
func checkFormats(t *testing.T, rep *report.Report) {
	t.Helper()
	{
		var b bytes.Buffer
		_ = report.Render(&b, rep, report.FormatText)
		t.Log(b.String())
	}
	for _, f := range []string{report.FormatText, report.FormatMarkdown, report.FormatHTML} {
		var b bytes.Buffer
		if err := report.Render(&b, rep, f); err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"Per-agent Overall by judge", "Collective Overall by judge", "Inter-judge agreement",
			"ρ gemma ~ phi4", "Krippendorff"} {
			if !strings.Contains(b.String(), want) {
				t.Errorf("%s report lacks %q:\n%s", f, want, b.String())
			}
		}
	}
	var b bytes.Buffer
	if err := report.Render(&b, rep, report.FormatCSV); err != nil {
		t.Fatal(err)
	}
	lines, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]int{}
	for _, l := range lines {
		kinds[l[0]]++
	}
	// 2 levels x 2 judges; (5 + 1) + (4 + 1) criteria with Overall, one pair each.
	if kinds["judge_score"] != 4 || kinds["judge_agreement"] != 11 || kinds["judge_spearman"] != 11 {
		t.Errorf("CSV judge lines %v, want 4 judge_score, 11 judge_agreement, 11 judge_spearman", kinds)
	}
	b.Reset()
	if err := report.Render(&b, rep, report.FormatJSON); err != nil {
		t.Fatal(err)
	}
	var js struct {
		Judges []struct {
			Judges    []string `json:"judges"`
			Agreement []struct {
				Criterion string   `json:"criterion"`
				Alpha     *float64 `json:"alpha_interval"`
				Pairs     []struct {
					Rho *float64 `json:"spearman_rho"`
				} `json:"pairs"`
			} `json:"agreement"`
		} `json:"judges"`
	}
	if err := json.Unmarshal(b.Bytes(), &js); err != nil {
		t.Fatal(err)
	}
	if len(js.Judges) != 2 {
		t.Fatalf("JSON judges: %s", b.String())
	}
	for i, jt := range js.Judges {
		for k, a := range jt.Agreement {
			want := rep.Judges[i].Agreement[k]
			if (a.Alpha == nil) != math.IsNaN(want.Alpha) || (a.Alpha != nil && *a.Alpha != want.Alpha) {
				t.Errorf("JSON alpha of %s: %v, want %v", a.Criterion, a.Alpha, want.Alpha)
			}
		}
	}
}
