package web

import (
	"sort"
	"strings"
)

// runCounters is what the runs list shows of a run's counters: all of
// them when there are a few, else a summary (requests and tokens summed
// over the roles, the non-zero counters that report a problem, at most
// maxProblems) with the count of the rest, which the run's page lists. A
// run writes about ninety counters; listed in full they made each row
// over a thousand pixels tall.
type runCounters struct {
	All      []kv
	Summary  []kv
	Problems []kv
	// More is how many problem counters were left out; Total how many
	// counters the run has.
	More, Total int
}

// fewCounters is how many counters a row lists in full.
const fewCounters = 4

// maxProblems is how many non-zero problem counters a row names.
const maxProblems = 3

// problemSuffixes end the names of counters that count something going
// wrong (failures by cause are summed into their role's .failures).
var problemSuffixes = []string{"units_failed", "_failures", ".failures", "_fallbacks", "empty_responses",
	"lost_in_flight", ".restarts", ".timeouts", "skipped_samples"}

func summarizeCounters(m map[string]int64) runCounters {
	rc := runCounters{Total: len(m)}
	if len(m) <= fewCounters {
		rc.All = sortedKV(m)
		return rc
	}
	var requests, tokens int64
	var problems []kv
	for k, v := range m {
		switch {
		case strings.HasSuffix(k, ".requests"):
			requests += v
		case strings.HasSuffix(k, "tokens_in"), strings.HasSuffix(k, "tokens_out"):
			tokens += v
		case v > 0 && isProblem(k):
			problems = append(problems, kv{k, v})
		}
	}
	rc.Summary = []kv{{"requests", requests}, {"tokens", tokens}}
	// The largest first: what went most wrong leads.
	sort.Slice(problems, func(i, j int) bool {
		if problems[i].V != problems[j].V {
			return problems[i].V > problems[j].V
		}
		return problems[i].K < problems[j].K
	})
	if len(problems) > maxProblems {
		rc.More = len(problems) - maxProblems
		problems = problems[:maxProblems]
	}
	rc.Problems = problems
	return rc
}

func isProblem(name string) bool {
	for _, s := range problemSuffixes {
		if strings.HasSuffix(name, s) {
			return true
		}
	}
	return false
}
