package train

import (
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"

	"mascot.dev/mascot/results"
	"mascot.dev/mascot/results/report"
	"mascot.dev/mascot/trainer/train"
)

// Held-out evaluation of the trained models. A reward model holds out
// whole queries (every pair of a held-out query goes to evaluation, none
// to training), so its held-out accuracy measures generalisation to new
// contexts rather than memory of the training pairs. A policy holds out
// prompts (or states) and is scored on them before and after training;
// the paired per-prompt differences give a bootstrap interval.

// heldoutResamples is the number of bootstrap resamples of a paired
// difference (the report's tables use 1,000; a single interval can
// afford more).
const heldoutResamples = 10000

// splitKeys shuffles the distinct keys with seed and holds out frac of
// them: at least one when frac > 0 and there are two or more keys, and
// never all of them. It returns the held-out set.
func splitKeys(keys []string, frac float64, seed uint64) map[string]bool {
	seen := map[string]bool{}
	var ks []string
	for _, k := range keys {
		if !seen[k] {
			seen[k] = true
			ks = append(ks, k)
		}
	}
	sort.Strings(ks)
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	r.Shuffle(len(ks), func(i, j int) { ks[i], ks[j] = ks[j], ks[i] })
	n := int(math.Round(frac * float64(len(ks))))
	if frac > 0 && n == 0 && len(ks) >= 2 {
		n = 1
	}
	n = max(0, min(n, len(ks)-1))
	out := make(map[string]bool, n)
	for _, k := range ks[:n] {
		out[k] = true
	}
	return out
}

// pairQuery is the query a stored pair belongs to: its context and
// persona (persona pairs), its context (group pairs), else its prompt.
func pairQuery(p results.PairText) string {
	if p.ContextID == "" && p.Persona == "" {
		return "prompt\x00" + p.Prompt
	}
	return p.ContextID + "\x00" + p.Persona
}

// splitPairs splits pairs by query: frac of the queries (seeded) are held
// out with all their pairs. queries names the held-out queries, sorted
// ("context/persona", "context" for group pairs).
func splitPairs(rows []results.PairText, pairs []train.Pair, frac float64, seed uint64) (tr, ho []train.Pair, queries []string) {
	keys := make([]string, len(rows))
	for i, r := range rows {
		keys[i] = pairQuery(r)
	}
	held := splitKeys(keys, frac, seed)
	named := map[string]bool{}
	for i, p := range pairs {
		if !held[keys[i]] {
			tr = append(tr, p)
			continue
		}
		ho = append(ho, p)
		name := strings.TrimSuffix(rows[i].ContextID+"/"+rows[i].Persona, "/")
		if rows[i].ContextID == "" && rows[i].Persona == "" {
			name = "prompt " + shortHash(rows[i].Prompt)
		}
		if !named[name] {
			named[name] = true
			queries = append(queries, name)
		}
	}
	sort.Strings(queries)
	return tr, ho, queries
}

// shortHash names a long text by its FNV-64a hash in hex.
func shortHash(s string) string {
	h := fnv.New64a()
	h.Write([]byte(s))
	return fmt.Sprintf("%016x", h.Sum64())
}

// rmHeldoutMetrics are a reward model's held-out figures as stage metrics.
func rmHeldoutMetrics(stage string, eval map[string]float64) []results.Metric {
	if eval == nil {
		return nil
	}
	return []results.Metric{
		{System: stage, Name: results.MetricHeldoutAccuracy, Value: eval["accuracy"]},
		{System: stage, Name: results.MetricHeldoutLoss, Value: eval["loss"]},
		{System: stage, Name: results.MetricHeldoutPairs, Value: eval["pairs"]},
	}
}

// pairedDelta summarises per-key rewards before and after training:
// the means over the keys where both are known, and the 95% percentile
// bootstrap interval of the mean paired difference (after − before),
// resampling keys. The bootstrap's seed is a hash of the keys and the
// values, so the same evaluation always gives the same interval.
type pairedDelta struct {
	n                     int
	before, after, lo, hi float64
}

func newPairedDelta(keys []string, before, after []float64) pairedDelta {
	var d pairedDelta
	var diffs [][]float64
	h := fnv.New64a()
	var sb, sa float64
	// In key order, so the interval does not depend on the order the
	// keys came in.
	order := make([]int, len(keys))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(x, y int) bool { return keys[order[x]] < keys[order[y]] })
	for _, i := range order {
		k, b, a := keys[i], before[i], after[i]
		if math.IsNaN(b) || math.IsNaN(a) {
			continue
		}
		sb, sa = sb+b, sa+a
		diffs = append(diffs, []float64{a - b})
		h.Write([]byte(k))
		h.Write([]byte(strconv.FormatFloat(b, 'g', -1, 64) + "/" + strconv.FormatFloat(a, 'g', -1, 64) + "\x00"))
	}
	d.n = len(diffs)
	if d.n == 0 {
		return pairedDelta{before: math.NaN(), after: math.NaN(), lo: math.NaN(), hi: math.NaN()}
	}
	d.before, d.after = sb/float64(d.n), sa/float64(d.n)
	d.lo, d.hi = math.NaN(), math.NaN()
	if d.n >= 2 { // one prompt has no spread to resample
		lo, hi := report.Bootstrap(diffs, 1, heldoutResamples, h.Sum64(), 0.95)
		d.lo, d.hi = lo[0], hi[0]
	}
	return d
}

// metrics are the stage metrics of a policy's held-out evaluation (the
// interval only from two prompts on).
func (d pairedDelta) metrics(stage string) []results.Metric {
	if d.n == 0 {
		return nil
	}
	out := []results.Metric{
		{System: stage, Name: results.MetricHeldoutRewardBefore, Value: d.before},
		{System: stage, Name: results.MetricHeldoutRewardAfter, Value: d.after},
	}
	if !math.IsNaN(d.lo) {
		out = append(out, results.Metric{System: stage, Name: results.MetricHeldoutDeltaCILow, Value: d.lo},
			results.Metric{System: stage, Name: results.MetricHeldoutDeltaCIHigh, Value: d.hi})
	}
	return append(out, results.Metric{System: stage, Name: results.MetricHeldoutPrompts, Value: float64(d.n)})
}

// splitTexts holds out frac of the distinct keys (seeded, as splitKeys)
// with every item of theirs: items[i] belongs to keys[i]. It returns the
// training and held-out items.
func splitTexts[T any](items []T, keys []string, frac float64, seed uint64) (tr, ho []T) {
	held := splitKeys(keys, frac, seed)
	for i, it := range items {
		if held[keys[i]] {
			ho = append(ho, it)
		} else {
			tr = append(tr, it)
		}
	}
	return tr, ho
}

// lmHeldoutMetrics are a language model's held-out figures (pretrain,
// train-sft) as stage metrics: the mean NLL per token before and after
// training and the counts (the store derives the perplexities).
func lmHeldoutMetrics(stage string, eval map[string]float64) []results.Metric {
	if eval == nil {
		return nil
	}
	return []results.Metric{
		{System: stage, Name: results.MetricHeldoutLossBefore, Value: eval["loss_before"]},
		{System: stage, Name: results.MetricHeldoutLoss, Value: eval["loss"]},
		{System: stage, Name: results.MetricHeldoutExamples, Value: eval["examples"]},
		{System: stage, Name: results.MetricHeldoutTokens, Value: eval["tokens"]},
	}
}

// dpoHeldoutMetrics are a DPO policy's held-out figures as stage
// metrics: preference accuracy and DPO loss before and after training.
func dpoHeldoutMetrics(stage string, eval map[string]float64) []results.Metric {
	if eval == nil {
		return nil
	}
	return []results.Metric{
		{System: stage, Name: results.MetricHeldoutAccuracyBefore, Value: eval["accuracy_before"]},
		{System: stage, Name: results.MetricHeldoutAccuracy, Value: eval["accuracy"]},
		{System: stage, Name: results.MetricHeldoutLossBefore, Value: eval["loss_before"]},
		{System: stage, Name: results.MetricHeldoutLoss, Value: eval["loss"]},
		{System: stage, Name: results.MetricHeldoutPairs, Value: eval["pairs"]},
	}
}
