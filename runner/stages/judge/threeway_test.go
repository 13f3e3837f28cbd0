package judge_test

import (
	"context"
	"encoding/json"
	"maps"
	"math"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"mascot.dev/mascot/experiments/prompts"
	"mascot.dev/mascot/internal/fakevllm"
	"mascot.dev/mascot/internal/testspec"
	"mascot.dev/mascot/results"
	"mascot.dev/mascot/results/report"
)

var responseHeading = regexp.MustCompile(`(?m)^## Response ([A-C])$`)

// shownOrder is the systems of a comparison prompt's responses, in the
// order shown (each fake turn carries its system as "[system]").
func shownOrder(user string) []string {
	locs := responseHeading.FindAllStringSubmatchIndex(user, -1)
	var out []string
	for i, l := range locs {
		end := len(user)
		if i+1 < len(locs) {
			end = locs[i+1][0]
		}
		sec := user[l[1]:end]
		for _, sys := range []string{"mascot", "zero-shot", "few-shot"} {
			if strings.Contains(sec, "["+sys+"]") {
				out = append(out, sys)
				break
			}
		}
	}
	return out
}

// preferringJudge is a fake judge endpoint that, asked to compare, names
// the response of system want (or, with want "", always the first shown:
// a judge with pure position bias). It records the orders it was shown.
func preferringJudge(t *testing.T, want string, orders *[][]string, mu *sync.Mutex) *fakevllm.Server {
	cp := prompts.Comparison()
	return fakevllm.Start(t, fakevllm.Options{Reply: func(req fakevllm.Request) (string, bool) {
		if len(req.Messages) < 2 || !strings.HasPrefix(req.Messages[0].Content, cp.Instruction) {
			return "", false
		}
		order := shownOrder(req.Messages[len(req.Messages)-1].Content)
		mu.Lock()
		*orders = append(*orders, order)
		mu.Unlock()
		winner := 0
		for i, s := range order {
			if s == want {
				winner = i
			}
		}
		var ranking []string
		for i := range order {
			ranking = append(ranking, cp.Labels[(winner+i)%len(order)])
		}
		b, _ := json.Marshal(map[string]any{"rationale": "known preference", "winner": cp.Labels[winner], "ranking": ranking})
		return string(b), true
	}})
}

// TestThreeWayComparisonWinRates runs a three-way judge stage (MASCOT and
// two baselines' episodes of the same contexts) with three judges whose
// preferences are known — two prefer MASCOT, one zero-shot — and one with
// pure position bias in a stage of its own. Each judge sees the systems in
// a seeded random order (varying over items, the same on a rerun) and
// again reversed; the report's win rates per judge, for the judges'
// majority and for the biased judge (every verdict flips with the order:
// all ties) are what the preferences imply, with Wilson 95% intervals
// this test computes itself.
func TestThreeWayComparisonWinRates(t *testing.T) {
	var mu sync.Mutex
	var orders [][]string
	gen := fakevllm.Start(t, fakevllm.Options{})
	j1 := preferringJudge(t, "mascot", &orders, &mu)
	j2 := preferringJudge(t, "mascot", &orders, &mu)
	j3 := preferringJudge(t, "zero-shot", &orders, &mu)
	jb := preferringJudge(t, "", &orders, &mu)
	store, err := results.Open(filepath.Join(t.TempDir(), "m.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	ep := func(url string) string {
		return `{urls: ["` + url + `"], model: "Qwen/Qwen3-8B", retries: 2, timeout: "5s", sampling: temperature: 0}`
	}
	src := `package spec

import "mascot.dev/experiments/personas"

name: "test/three-way"
datasets: test: {name: "esconv", path: "` + testspec.ESConv + `", limit: 3}
rosters: support: personas.emotional_support
endpoints: speaker: ` + ep(gen.URL()) + `
endpoints: j1: ` + ep(j1.URL()) + `
endpoints: j2: ` + ep(j2.URL()) + `
endpoints: j3: ` + ep(j3.URL()) + `
endpoints: jb: ` + ep(jb.URL()) + `
judges: gemma: {plugin: "rubric", endpoint: "j1"}
judges: gpt4o: {plugin: "rubric", endpoint: "j2"}
judges: phi4: {plugin: "rubric", endpoint: "j3"}
judges: biased: {plugin: "rubric", endpoint: "jb"}
stages: {
	eval: {kind: "episodes", mode: "eval", dataset: "test", roster: "support", director: "speaker", user: "speaker", samples_per_context: 2}
	zs: {kind: "episodes", mode: "eval", dataset: "test", roster: "support", system: "zero-shot", director: "speaker", user: "speaker", samples_per_context: 2}
	fs: {kind: "episodes", mode: "eval", dataset: "test", roster: "support", system: "few-shot", director: "speaker", user: "speaker", samples_per_context: 2}
	three_way: {kind: "judge", items: "eval", level: "compare", compare: ["zs", "fs"], judges: ["gemma", "gpt4o", "phi4"]}
	three_way_biased: {kind: "judge", items: "eval", level: "compare", compare: ["zs", "fs"], judges: ["biased"]}
}
`
	sum := execute(t, testspec.Load(t, src), store)

	// 3 contexts x 2 samples = 6 items; 4 judges, each in both orders.
	if len(orders) != 6*4*2 {
		t.Fatalf("judges were asked %d times, want 48", len(orders))
	}
	first := map[string]int{}
	for i, o := range orders {
		if len(o) != 3 {
			t.Fatalf("prompt %d shows %v, want three systems", i, o)
		}
		first[o[0]]++
	}
	if len(first) < 2 {
		t.Errorf("the same system is always shown first (%v): the order is not drawn per item", first)
	}

	rep, err := report.Build(context.Background(), store, []string{sum.RunID}, report.Options{Resamples: -1})
	if err != nil {
		t.Fatal(err)
	}
	type key struct{ source, system string }
	got := map[key]report.WinRate{}
	for _, w := range rep.WinRates {
		if w.Kind != "three-way" {
			t.Errorf("win rate of kind %s: %+v", w.Kind, w)
		}
		got[key{w.Source, w.System}] = w
	}
	majority := report.MajoritySource([]string{"gemma", "gpt4o", "phi4"})
	// Comparisons name each alternative by its episodes stage: eval is
	// MASCOT, zs zero-shot, fs few-shot.
	want := map[key][2]int{ // wins, ties of 6
		{"gemma", "eval"}: {6, 0}, {"gemma", "zs"}: {0, 0}, {"gemma", "fs"}: {0, 0},
		{"gpt4o", "eval"}: {6, 0}, {"phi4", "zs"}: {6, 0}, {"phi4", "eval"}: {0, 0},
		{majority, "eval"}: {6, 0}, {majority, "zs"}: {0, 0}, {majority, "fs"}: {0, 0},
		{"biased", "eval"}: {0, 6}, {"biased", "zs"}: {0, 6}, {"biased", "fs"}: {0, 6},
	}
	if len(got) != 15 {
		t.Errorf("%d win rates, want 15 (5 sources x 3 systems): %v", len(got), mapKeysOf(got))
	}
	for k, wt := range want {
		w, ok := got[k]
		if !ok {
			t.Errorf("no win rate for %v (have %v)", k, mapKeysOf(got))
			continue
		}
		lo, hi := wilson95(wt[0], 6)
		if w.Shown != 6 || w.Wins != wt[0] || w.Ties != wt[1] || !close(w.CILow, lo) || !close(w.CIHigh, hi) {
			t.Errorf("%v: %+v; want 6 shown, %d wins, %d ties, CI [%v, %v]", k, w, wt[0], wt[1], lo, hi)
		}
	}
	// The orders are drawn from the items' seeds: a fresh run in a new
	// database shows every item in the same orders.
	firstRun := append([][]string(nil), orders...)
	orders = orders[:0]
	fresh, err := results.Open(filepath.Join(t.TempDir(), "m.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close()
	execute(t, testspec.Load(t, src), fresh)
	if a, b := orderCounts(firstRun), orderCounts(orders); !maps.Equal(a, b) {
		t.Errorf("a fresh run shows other orders: %v, then %v", a, b)
	}
}

// orderCounts counts how often each order was shown.
func orderCounts(orders [][]string) map[string]int {
	out := map[string]int{}
	for _, o := range orders {
		out[strings.Join(o, ",")]++
	}
	return out
}

func mapKeysOf[K comparable, V any](m map[K]V) []K {
	var out []K
	for k := range m {
		out = append(out, k)
	}
	return out
}

// wilson95 is the Wilson score interval for k of n at 95%:
// (p + z²/2n ± z·sqrt(p(1−p)/n + z²/4n²)) / (1 + z²/n).
func wilson95(k, n int) (float64, float64) {
	const z = 1.959963984540054
	p, nf := float64(k)/float64(n), float64(n)
	c := p + z*z/(2*nf)
	h := z * math.Sqrt(p*(1-p)/nf+z*z/(4*nf*nf))
	d := 1 + z*z/nf
	return (c - h) / d, (c + h) / d
}
