package runner

import (
	"fmt"
	"io"
)

// PrintRace renders a racing search's account: each round's variants
// with their mean and paired difference from the best, then which
// variants were stopped, when and why, and what the search spent.
func PrintRace(w io.Writer, rr *RaceReport) {
	fmt.Fprintf(w, "%s search on %q (%.0f%% paired CI against the round's best), %d evaluation contexts in full\n",
		rr.Strategy, rr.Metric, 100*rr.Confidence, rr.Contexts)
	var labels []string
	for _, rd := range rr.Rounds {
		for _, e := range rd.Entries {
			labels = append(labels, e.Variant)
		}
	}
	lw := labelWidth(labels)
	for _, rd := range rr.Rounds {
		fmt.Fprintf(w, "round %d: %d contexts\n", rd.Round, rd.Contexts)
		for _, e := range rd.Entries {
			switch {
			case e.Error != "":
				fmt.Fprintf(w, "  %-*s  failed: %s\n", lw, e.Variant, e.Error)
			case e.Best:
				fmt.Fprintf(w, "  %-*s  %8.2f  best\n", lw, e.Variant, e.Mean)
			default:
				fmt.Fprintf(w, "  %-*s  %8.2f  %+.2f [%+.2f, %+.2f] n=%d  %s\n", lw, e.Variant, e.Mean, e.MeanDiff,
					e.CILow, e.CIHigh, e.N, e.Verdict)
			}
		}
	}
	if len(rr.Stopped) > 0 {
		fmt.Fprintln(w, "stopped:")
		for _, s := range rr.Stopped {
			fmt.Fprintf(w, "  %s after round %d (%d contexts): %s\n", s.Variant, s.Round, s.Contexts, s.Evidence)
		}
	}
	if rr.Budget != "" {
		fmt.Fprintf(w, "search stopped: %s; unfinished: %v\n", rr.Budget, rr.Unfinished)
	}
	fmt.Fprintf(w, "best: %s; spent %d units ran (%d cached), %d LLM requests\n", rr.Winner, rr.UnitsRan, rr.UnitsCached, rr.Requests)
}
