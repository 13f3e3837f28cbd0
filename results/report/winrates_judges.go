package report

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"mascot.dev/mascot/results"
)

// Comparison judges, as win-rate sources. A judge stage writes, per
// comparison, each model's verdict ("<judge>/<model>") and its plugin's
// majority over them ("<judge>"); with one model the two are the same
// verdict, so the model's copy is no source of its own. With several
// judges (judgeColumns: stage judges, or a plugin's several models) the
// report adds their majority per comparison, the pooled verdict the paper
// reports beside each judge's.

// MajoritySource names the win rates of the judges' majority verdicts.
func MajoritySource(judges []string) string {
	return fmt.Sprintf("majority of %d judges (%s)", len(judges), strings.Join(judges, ", "))
}

// comparisonSources says which judges' comparison rows are win-rate
// sources (a lone model's copy of its judge's verdict is not), and maps
// the judges whose majority is pooled to their column names.
func comparisonSources(cs []results.Comparison) (keep map[string]bool, columns map[string]string) {
	names := namesOf(cs)
	_, of := judgeColumns(names)
	keep = map[string]bool{}
	for n := range names {
		p, _, child := strings.Cut(n, "/")
		if _, col := of[n]; col || !child || !names[p] {
			keep[n] = true // a column, a pool of several models, or a judge without a pool
		}
	}
	return keep, of
}

// majorityChoices pools, per comparison (the same unit, context, episodes
// shown and criterion) that two or more judges decided, their verdicts:
// the system a strict majority of them chose, else a tie. The source
// names the judges pooled, so the comparisons of different judge stages
// are tallied apart.
func majorityChoices(cs []results.Comparison, pops []string, columns map[string]string) []Choice {
	type key struct{ unit, context, episodes, crit, pop string }
	type tally struct {
		systems []string
		judges  []string
		votes   map[string]int
	}
	acc := map[key]*tally{}
	var order []key
	for i, c := range cs {
		name, ok := columns[c.Judge]
		if !ok {
			continue
		}
		k := key{c.UnitFP, c.ContextID, fmt.Sprint(c.EpisodeIDs), c.Criterion, pops[i]}
		t := acc[k]
		if t == nil {
			t = &tally{systems: c.Systems, votes: map[string]int{}}
			acc[k] = t
			order = append(order, k)
		}
		if !slices.Contains(t.judges, name) {
			t.judges = append(t.judges, name)
		}
		t.votes[c.Choice]++
	}
	// Comparisons in the order of their keys, not of their rows.
	sort.Slice(order, func(a, b int) bool {
		x, y := order[a], order[b]
		return x.unit+"\x00"+x.context+"\x00"+x.episodes+"\x00"+x.crit < y.unit+"\x00"+y.context+"\x00"+y.episodes+"\x00"+y.crit
	})
	var out []Choice
	for _, k := range order {
		t := acc[k]
		if len(t.judges) < 2 {
			continue
		}
		sort.Strings(t.judges)
		choice := results.Tie
		for _, s := range t.systems {
			if 2*t.votes[s] > len(t.judges) {
				choice = s
			}
		}
		out = append(out, Choice{Source: MajoritySource(t.judges), Criterion: k.crit, Population: k.pop,
			Systems: slices.Clone(t.systems), Choice: choice})
	}
	return out
}

func namesOf(cs []results.Comparison) map[string]bool {
	names := map[string]bool{}
	for _, c := range cs {
		names[c.Judge] = true
	}
	return names
}
