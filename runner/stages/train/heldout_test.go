package train

import (
	"math"
	"slices"
	"testing"

	"mascot.dev/mascot/results"
	"mascot.dev/mascot/trainer/train"
)

// Pairs are held out by whole queries: no query has pairs on both sides,
// the split follows the seed, and frac of the queries go (at least one,
// never all).
func TestSplitPairsHoldsOutWholeQueries(t *testing.T) {
	var rows []results.PairText
	var pairs []train.Pair
	for q := range 10 {
		for k := range 3 {
			r := results.PairText{ContextID: string(rune('a' + q)), Persona: "P", Prompt: "p", Chosen: "c", Rejected: string(rune('0' + k))}
			rows, pairs = append(rows, r), append(pairs, train.Pair{Prompt: r.ContextID, Rejected: r.Rejected})
		}
	}
	tr, ho, queries := splitPairs(rows, pairs, 0.2, 7)
	if len(queries) != 2 || len(ho) != 6 || len(tr) != 24 {
		t.Fatalf("held out %d queries (%v) with %d pairs, trained on %d; want 2 queries, 6 and 24 pairs", len(queries), queries, len(ho), len(tr))
	}
	for _, p := range tr {
		if slices.Contains(queries, p.Prompt+"/P") {
			t.Errorf("query %s has pairs in training and in the held-out set", p.Prompt)
		}
	}
	_, _, again := splitPairs(rows, pairs, 0.2, 7)
	_, _, other := splitPairs(rows, pairs, 0.2, 8)
	if !slices.Equal(again, queries) {
		t.Errorf("same seed held out %v, then %v", queries, again)
	}
	if slices.Equal(other, queries) {
		t.Logf("seeds 7 and 8 hold out the same queries %v", other) // possible, not wrong
	}
	if _, ho, _ := splitPairs(rows, pairs, 0, 7); len(ho) != 0 {
		t.Errorf("fraction 0 held out %d pairs", len(ho))
	}
	if tr, _, _ := splitPairs(rows, pairs, 0.99, 7); len(tr) != 3 {
		t.Errorf("fraction 0.99 left %d training pairs, want one query's 3", len(tr))
	}
	if tr, ho, _ := splitPairs(rows[:3], pairs[:3], 0.5, 7); len(tr) != 3 || len(ho) != 0 {
		t.Errorf("one query: %d train, %d held out; want all in training", len(tr), len(ho))
	}
	// Group pairs (no persona) are held out by context.
	g := []results.PairText{{ContextID: "x"}, {ContextID: "x"}, {ContextID: "y"}}
	if _, ho, q := splitPairs(g, make([]train.Pair, 3), 0.5, 1); len(q) != 1 || (q[0] == "x") != (len(ho) == 2) {
		t.Errorf("group pairs: held out %v with %d pairs", q, len(ho))
	}
}

// The paired difference's interval is a 95% percentile bootstrap over the
// prompts, the same for the same evaluation in any order, and prompts
// without a reward on either side are left out.
func TestPairedDelta(t *testing.T) {
	keys := []string{"p1", "p2", "p3", "p4", "p5", "p6"}
	before := []float64{0.1, 0.2, 0.3, 0.4, 0.5, math.NaN()}
	after := []float64{0.3, 0.3, 0.6, 0.5, 0.9, 0.7}
	d := newPairedDelta(keys, before, after)
	if d.n != 5 || math.Abs(d.before-0.3) > 1e-12 || math.Abs(d.after-0.52) > 1e-12 {
		t.Fatalf("n %d, before %v, after %v; want 5, 0.3, 0.52", d.n, d.before, d.after)
	}
	// Differences 0.2, 0.1, 0.3, 0.1, 0.4: every resampled mean lies in
	// [0.1, 0.4], and the interval holds the mean 0.22.
	if !(d.lo >= 0.1-1e-12 && d.lo < 0.22 && d.hi > 0.22 && d.hi <= 0.4+1e-12) {
		t.Errorf("interval [%v, %v], want within [0.1, 0.4] around 0.22", d.lo, d.hi)
	}
	rev := func(xs []float64) []float64 { ys := slices.Clone(xs); slices.Reverse(ys); return ys }
	rk := slices.Clone(keys)
	slices.Reverse(rk)
	if r := newPairedDelta(rk, rev(before), rev(after)); r != d {
		t.Errorf("reversed order gives %+v, original %+v", r, d)
	}
	ms := d.metrics("pol")
	if len(ms) != 5 || ms[2].Name != results.MetricHeldoutDeltaCILow || ms[2].Value != d.lo || ms[4].Value != 5 {
		t.Errorf("metrics %+v", ms)
	}
	if none := newPairedDelta([]string{"a"}, []float64{math.NaN()}, []float64{1}); none.n != 0 || none.metrics("pol") != nil {
		t.Errorf("no complete prompt: %+v", none)
	}
	// One prompt: means, but no interval.
	one := newPairedDelta([]string{"a"}, []float64{1}, []float64{2})
	if ms := one.metrics("pol"); len(ms) != 3 || ms[2].Name != results.MetricHeldoutPrompts {
		t.Errorf("one prompt: metrics %+v, want before, after and the count", ms)
	}
}

// Pretraining text is held out by whole lines and SFT examples by
// context: no line, context or prompt is on both sides, a duplicated line
// stays on one, and fraction 0 holds out nothing.
func TestSplitTextsAndExamplesHoldOutWholeContexts(t *testing.T) {
	lines := []string{"a", "b", "c", "d", "a", "e", "f", "g", "h", "i", "j"}
	tr, ho := splitTexts(lines, lines, 0.1, 3)
	if len(ho) == 0 || len(tr)+len(ho) != len(lines) {
		t.Fatalf("held out %v, trained on %v", ho, tr)
	}
	for _, x := range ho {
		if slices.Contains(tr, x) {
			t.Errorf("line %q on both sides", x)
		}
	}
	if _, ho := splitTexts(lines, lines, 0, 3); len(ho) != 0 {
		t.Errorf("fraction 0 held out %v", ho)
	}
	// Three conversations of two turns; conversation z opens as x does,
	// so its first example's prompt is x's.
	exs := []train.Example{{Prompt: "x1", Completion: "1"}, {Prompt: "x2", Completion: "2"},
		{Prompt: "y1", Completion: "3"}, {Prompt: "y2", Completion: "4"},
		{Prompt: "x1", Completion: "5"}, {Prompt: "z2", Completion: "6"}}
	ctxs := []string{"x", "x", "y", "y", "z", "z"}
	for seed := range uint64(20) {
		tr, ho := splitExamples(exs, ctxs, 0.34, seed)
		if len(ho) == 0 || len(tr) < 2 {
			t.Fatalf("seed %d: held out %v, trained on %v", seed, ho, tr)
		}
		var hc, tc []string
		for _, e := range ho {
			hc = append(hc, ctxs[slices.Index(exs, e)])
			for _, f := range tr {
				if f.Prompt == e.Prompt {
					t.Errorf("seed %d: prompt %q on both sides", seed, e.Prompt)
				}
			}
		}
		for _, e := range tr {
			tc = append(tc, ctxs[slices.Index(exs, e)])
		}
		for _, c := range hc {
			if slices.Contains(tc, c) {
				t.Errorf("seed %d: context %s on both sides", seed, c)
			}
		}
	}
}

// The language stages' held-out metrics: losses and counts (no
// perplexity: the store derives it); DPO's: accuracy and loss before and
// after.
func TestHeldoutMetricsOfLanguageAndDPOStages(t *testing.T) {
	got := map[string]float64{}
	for _, m := range lmHeldoutMetrics("pre", map[string]float64{"loss_before": 2, "loss": 1, "examples": 3, "tokens": 40}) {
		if m.System != "pre" {
			t.Errorf("metric %+v not under the stage", m)
		}
		got[m.Name] = m.Value
	}
	if len(got) != 4 || got[results.MetricHeldoutLoss] != 1 ||
		got[results.MetricHeldoutTokens] != 40 || got[results.MetricHeldoutExamples] != 3 || got[results.MetricHeldoutLossBefore] != 2 {
		t.Errorf("language metrics %v", got)
	}
	if lmHeldoutMetrics("pre", nil) != nil || dpoHeldoutMetrics("dpo", nil) != nil {
		t.Error("no evaluation gave metrics")
	}
	ms := dpoHeldoutMetrics("dpo", map[string]float64{"accuracy_before": 0, "accuracy": 0.5, "loss_before": 0.69, "loss": 0.6, "pairs": 4})
	if len(ms) != 5 || ms[0].Name != results.MetricHeldoutAccuracyBefore || ms[1].Value != 0.5 || ms[4].Value != 4 {
		t.Errorf("dpo metrics %+v", ms)
	}
}
