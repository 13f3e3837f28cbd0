package runner

import (
	"fmt"
	"sort"
	"strings"

	"mascot.dev/mascot/results/report"
	"mascot.dev/mascot/schema"
)

// The racing search's reading of runs: the raced column among a run's
// values and comparisons, the contexts of a round, what a search spent.

// metricMatches says whether column name of a level is the metric:
// "overall" is the first judged level's Overall, "<level> overall" a
// level's, else a criterion or metric name.
func metricMatches(level, name, metric string) bool {
	metric = strings.ToLower(metric)
	key := strings.ToLower(name)
	if name == report.Overall && level != "metric" {
		key = level + " overall"
	}
	return key == metric || strings.HasSuffix(key, " "+metric)
}

// metricValue finds the metric among a run's shown values, as
// sweepColumns resolves a shown name (the first match in sorted order).
func metricValue(values map[string]float64, metric string) (float64, bool) {
	metric = strings.ToLower(metric)
	if v, ok := values[metric]; ok {
		return v, true
	}
	keys := make([]string, 0, len(values))
	for k := range values {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if strings.HasSuffix(k, " "+metric) {
			return values[k], true
		}
	}
	return 0, false
}

func mustMetric(values map[string]float64, metric string) float64 {
	v, _ := metricValue(values, metric)
	return v
}

func runIDOf(c SweepChild) string {
	if c.Summary == nil {
		return ""
	}
	return c.Summary.RunID
}

// roundTotal is the full number of contexts the round's sliced stages have.
func roundTotal(sum *SweepSummary, alive []int) int {
	t := 0
	for _, i := range alive {
		if s := sum.Children[i].Summary; s != nil {
			for _, st := range s.Stages {
				t = max(t, st.ContextsTotal)
			}
		}
	}
	return t
}

// evalStages are the stages a race slices: episodes in mode eval.
func evalStages(exp *schema.Experiment) []string {
	var out []string
	for _, k := range sortedKeys(exp.Stages) {
		st := exp.Stages[k]
		if st.Kind == "episodes" && rawString(st.Raw, "mode") == "eval" {
			out = append(out, k)
		}
	}
	return out
}

// requestsSent sums a run's LLM requests that reached a server.
func requestsSent(c map[string]int64) int64 {
	var n int64
	for k, v := range c {
		if strings.HasPrefix(k, "llm.") {
			switch {
			case strings.HasSuffix(k, "."+cntRequests):
				n += v
			case strings.HasSuffix(k, "."+cntCacheHits):
				n -= v
			}
		}
	}
	return n
}

// overBudget names the budget the search has spent, or "".
func (sw *sweep) overBudget(s schema.Search, rr *RaceReport) string {
	switch {
	case s.BudgetUnits > 0 && rr.UnitsRan >= s.BudgetUnits:
		return fmt.Sprintf("budget_units %d reached (%d units ran)", s.BudgetUnits, rr.UnitsRan)
	case s.BudgetRequests > 0 && rr.Requests >= int64(s.BudgetRequests):
		return fmt.Sprintf("budget_requests %d reached (%d requests sent)", s.BudgetRequests, rr.Requests)
	}
	return ""
}
