package runner

import (
	"context"
	"fmt"
	"math"
	"sort"

	"mascot.dev/mascot/results/report"
	"mascot.dev/mascot/schema"
)

// A racing search runs every variant on a first slice of its evaluation
// contexts, compares each with the current best on the contexts both ran
// (a paired difference with its bootstrap CI, as `results compare` gives),
// and extends only the variants that could still be as good: "race" keeps
// a variant while the CI of (variant − best) reaches 0, "halving"
// (successive halving) keeps the better half. Each round multiplies the
// contexts by the growth until they are all run; a round reruns nothing,
// since the slice keeps every unit's fingerprint (Slice). The last
// survivor is run on every context, so its numbers are the full
// evaluation's.

// RaceReport is a racing search's account.
type RaceReport struct {
	Strategy   string      `json:"strategy"`
	Metric     string      `json:"metric"`
	Confidence float64     `json:"confidence"`
	Contexts   int         `json:"contexts"` // evaluation contexts in full
	Rounds     []RaceRound `json:"rounds"`
	Stopped    []RaceStop  `json:"stopped"`
	// Winner is the best variant of the last round run (its label).
	Winner string `json:"winner"`
	// Unfinished are the variants still in the race when the budget ran
	// out; Budget says which limit stopped it ("" when none did).
	Unfinished []string `json:"unfinished,omitempty"`
	Budget     string   `json:"budget,omitempty"`
	// UnitsRan and UnitsCached total every round's runs; Requests the LLM
	// requests sent to servers (cache hits not counted).
	UnitsRan    int   `json:"units_ran"`
	UnitsCached int   `json:"units_cached"`
	Requests    int64 `json:"requests"`
}

// RaceRound is one round: how many contexts it ran and every variant in it.
type RaceRound struct {
	Round    int         `json:"round"`
	Contexts int         `json:"contexts"`
	Entries  []RaceEntry `json:"entries"`
}

// RaceEntry is one variant in one round.
type RaceEntry struct {
	Variant string  `json:"variant"`
	RunID   string  `json:"run_id"`
	Mean    float64 `json:"mean"`
	Best    bool    `json:"best,omitempty"`
	// Against the round's best, on the contexts both ran (not for the best).
	N        int     `json:"n,omitempty"`
	MeanDiff float64 `json:"mean_diff,omitempty"`
	CILow    float64 `json:"ci_low,omitempty"`
	CIHigh   float64 `json:"ci_high,omitempty"`
	Kept     bool    `json:"kept"`
	// Verdict is "best", "kept", "stopped", "failed", or "final" in a
	// round that ran every context (nothing is left to stop).
	Verdict string `json:"verdict"`
	Error   string `json:"error,omitempty"`
}

// RaceStop says when and on what evidence a variant was stopped.
type RaceStop struct {
	Variant  string `json:"variant"`
	Round    int    `json:"round"`
	Contexts int    `json:"contexts"`
	Best     string `json:"best"`
	Evidence string `json:"evidence"`
}

// raceRound is the round a child run belongs to.
type raceRound struct{ round, contexts int }

// raceAxes is a round's child run's axes: its variant, round and contexts.
type raceAxes struct {
	Variant
	Round    int `json:"race_round"`
	Contexts int `json:"race_contexts"`
}

// race runs the racing search and fills sum.Children with each variant's
// last run.
func (sw *sweep) race(ctx context.Context, s schema.Search, sum *SweepSummary) (*RaceReport, error) {
	rr := &RaceReport{Strategy: s.Strategy, Confidence: s.Confidence, Metric: s.Metric}
	if rr.Confidence == 0 {
		rr.Confidence = 0.95
	}
	if rr.Metric == "" && len(sw.def.Show) > 0 {
		rr.Metric = sw.def.Show[0]
	}
	if rr.Metric == "" {
		rr.Metric = "overall"
	}
	growth := max(2, s.Growth)
	n := s.FirstContexts
	if n <= 0 {
		n = 8
	}
	alive := make([]int, len(sw.variants))
	for i := range alive {
		alive[i] = i
	}
	total := math.MaxInt
	for round := 1; len(alive) > 0; round++ {
		if over := sw.overBudget(s, rr); over != "" {
			rr.Budget = over
			for _, i := range alive {
				rr.Unfinished = append(rr.Unfinished, sw.variants[i].Label())
			}
			break
		}
		n = min(n, total)
		sw.runRound(ctx, alive, n, round, sum, rr)
		if ctx.Err() != nil {
			return rr, ctx.Err()
		}
		if t := roundTotal(sum, alive); t > 0 {
			total, rr.Contexts = t, t
		} else {
			total = n // no variant got as far as its evaluation: nothing to extend
		}
		n = min(n, total) // what the round ran
		next, err := sw.judgeRound(ctx, alive, round, n, total, sum, rr)
		if err != nil {
			return rr, err
		}
		if n >= total {
			break // every survivor has run on every context
		}
		alive = next
		if len(alive) == 1 {
			n = total // the winner, on the full evaluation
		} else {
			n *= growth
		}
	}
	return rr, nil
}

// checkRace says why the variants cannot be raced, or nil.
func (sw *sweep) checkRace() error {
	for i, l := range sw.loaded {
		if len(evalStages(l.Experiment)) == 0 {
			return SelectionError{fmt.Sprintf("racing slices the evaluation contexts of episodes stages in mode eval, and variant %s has none (sweep it without --race)",
				sw.variants[i].Label())}
		}
	}
	return nil
}

// runRound runs the variants alive on their first n contexts.
func (sw *sweep) runRound(ctx context.Context, alive []int, n, round int, sum *SweepSummary, rr *RaceReport) {
	sw.runAll(ctx, alive, &raceRound{round: round, contexts: n}, sum)
	for _, i := range alive {
		if s := sum.Children[i].Summary; s != nil {
			rr.UnitsRan += s.Ran
			rr.UnitsCached += s.Cached
			rr.Requests += requestsSent(s.Counters)
		}
	}
}

// judgeRound compares the round's variants with its best and returns the
// ones that go on.
func (sw *sweep) judgeRound(ctx context.Context, alive []int, round, n, total int, sum *SweepSummary, rr *RaceReport) ([]int, error) {
	rd := RaceRound{Round: round, Contexts: n}
	best := -1
	var ok []int
	for _, i := range alive {
		c := sum.Children[i]
		m, has := metricValue(c.Values, rr.Metric)
		if c.Error != "" || !has {
			why := c.Error
			if why == "" {
				why = fmt.Sprintf("no value for %q", rr.Metric)
			}
			rd.Entries = append(rd.Entries, RaceEntry{Variant: c.Variant.Label(), RunID: runIDOf(c), Verdict: "failed",
				Error: failureLine(why)})
			rr.Stopped = append(rr.Stopped, RaceStop{Variant: c.Variant.Label(), Round: round, Contexts: n,
				Evidence: "failed: " + failureLine(why)})
			continue
		}
		ok = append(ok, i)
		if best < 0 || m > mustMetric(sum.Children[best].Values, rr.Metric) {
			best = i
		}
	}
	if best < 0 {
		rr.Rounds = append(rr.Rounds, rd)
		return nil, fmt.Errorf("racing: no variant of round %d has a value for %q", round, rr.Metric)
	}
	rr.Winner = sum.Children[best].Variant.Label()
	bestRun := runIDOf(sum.Children[best])
	// Halving ranks by mean; racing keeps whatever the interval cannot
	// tell from the best.
	sort.SliceStable(ok, func(a, b int) bool {
		return mustMetric(sum.Children[ok[a]].Values, rr.Metric) > mustMetric(sum.Children[ok[b]].Values, rr.Metric)
	})
	keepN := (len(ok) + 1) / 2
	var next []int
	for rank, i := range ok {
		c := sum.Children[i]
		e := RaceEntry{Variant: c.Variant.Label(), RunID: runIDOf(c), Mean: mustMetric(c.Values, rr.Metric), Best: i == best,
			Kept: true, Verdict: "best"}
		if i != best {
			ps, err := sw.paired(ctx, runIDOf(c), bestRun, rr)
			if err != nil {
				return nil, err
			}
			e.N, e.MeanDiff, e.CILow, e.CIHigh = ps.N, ps.MeanDiff, ps.CILow, ps.CIHigh
			e.Verdict = "kept"
			stop := ""
			switch {
			case n >= total:
				e.Verdict = "final"
			case rr.Strategy == "halving" && rank >= keepN:
				stop = fmt.Sprintf("rank %d of %d (mean %.2f, best %.2f); halving keeps %d", rank+1, len(ok), e.Mean,
					mustMetric(sum.Children[best].Values, rr.Metric), keepN)
			case rr.Strategy == "race" && ps.CIHigh < 0:
				stop = fmt.Sprintf("paired difference %+.2f, %.0f%% CI [%+.2f, %+.2f] over %d contexts: below the best",
					ps.MeanDiff, 100*rr.Confidence, ps.CILow, ps.CIHigh, ps.N)
			}
			if stop != "" {
				e.Kept, e.Verdict = false, "stopped"
				rr.Stopped = append(rr.Stopped, RaceStop{Variant: e.Variant, Round: round, Contexts: n,
					Best: rr.Winner, Evidence: stop})
			}
		}
		if e.Kept {
			next = append(next, i)
		}
		rd.Entries = append(rd.Entries, e)
	}
	rr.Rounds = append(rr.Rounds, rd)
	return next, nil
}

// paired is the paired difference (a − b) of the metric over the contexts
// both runs scored.
func (sw *sweep) paired(ctx context.Context, a, b string, rr *RaceReport) (report.PairedStat, error) {
	cmp, err := report.Compare(ctx, sw.store, a, b, report.Options{SplitBy: "none", Confidence: rr.Confidence})
	if err != nil {
		return report.PairedStat{}, fmt.Errorf("racing: %w", err)
	}
	for _, t := range cmp.Paired {
		for c, name := range t.Criteria {
			if !metricMatches(t.Level, name, rr.Metric) {
				continue
			}
			for _, row := range t.Rows {
				if row.Split == "all" || len(t.Rows) == 1 {
					return row.Cells[c], nil
				}
			}
		}
	}
	return report.PairedStat{}, fmt.Errorf("racing: runs %s and %s have no paired %q", a, b, rr.Metric)
}
