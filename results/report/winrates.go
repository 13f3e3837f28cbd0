package report

import (
	"context"
	"fmt"
	"sort"

	"mascot.dev/mascot/results"
)

// WinRate is how often a system won the comparisons that showed it.
type WinRate struct {
	RunID     string `json:"run_id"`
	Source    string `json:"source"` // judge name, or "human"
	Kind      string `json:"kind"`   // pairwise | three-way | N-way
	Criterion string `json:"criterion,omitempty"`
	// Population is empty for comparisons of evaluation episodes, else the
	// training mode of the episodes compared.
	Population string  `json:"population,omitempty"`
	System     string  `json:"system"`
	Shown      int     `json:"shown"`
	Wins       int     `json:"wins"`
	Ties       int     `json:"ties"`
	Rate       float64 `json:"rate"` // wins / shown
	CILow      float64 `json:"ci_low"`
	CIHigh     float64 `json:"ci_high"`
}

// Choice is one comparison outcome, from a judge or a human rater.
type Choice struct {
	Source, Criterion string
	Population        string // empty: evaluation; else a training mode
	Systems           []string
	Choice            string
}

func kindOf(n int) string {
	switch n {
	case 2:
		return "pairwise"
	case 3:
		return "three-way"
	}
	return fmt.Sprintf("%d-way", n)
}

// TallyWins counts wins per (source, kind, criterion, system) with Wilson
// intervals at the given confidence.
func TallyWins(runID string, choices []Choice, confidence float64) []WinRate {
	type key struct{ population, source, kind, crit, system string }
	acc := map[key]*WinRate{}
	for _, c := range choices {
		for _, s := range c.Systems {
			k := key{c.Population, c.Source, kindOf(len(c.Systems)), c.Criterion, s}
			w := acc[k]
			if w == nil {
				w = &WinRate{RunID: runID, Source: k.source, Kind: k.kind, Criterion: k.crit, Population: k.population,
					System: s}
				acc[k] = w
			}
			w.Shown++
			switch c.Choice {
			case s:
				w.Wins++
			case results.Tie:
				w.Ties++
			}
		}
	}
	z := zFor(confidence)
	out := make([]WinRate, 0, len(acc))
	for _, w := range acc {
		w.Rate = float64(w.Wins) / float64(w.Shown)
		w.CILow, w.CIHigh = Wilson(w.Wins, w.Shown, z)
		out = append(out, *w)
	}
	sort.Slice(out, func(a, b int) bool {
		x, y := out[a], out[b]
		if x.Population != y.Population {
			return x.Population < y.Population
		}
		if x.Source != y.Source {
			return x.Source < y.Source
		}
		if x.Kind != y.Kind {
			return x.Kind < y.Kind
		}
		if x.Criterion != y.Criterion {
			return x.Criterion < y.Criterion
		}
		return x.System < y.System
	})
	return out
}

// WinRates tallies a run's comparisons of evaluation episodes (of all its
// episodes when it has no evaluation episode, results.CoversTraining) and
// the human preferences recorded for it.
func WinRates(ctx context.Context, st *results.Store, runID string, confidence float64) ([]WinRate, error) {
	training, err := st.CoversTraining(ctx, runID, results.Scope{})
	if err != nil {
		return nil, err
	}
	return winRatesIn(ctx, st, runID, confidence, nil, training)
}

// winRatesIn tallies the comparisons of the units (nil: the run's), with
// the comparisons of training-time episodes labelled by their mode when
// training is set and left out otherwise. A comparison belongs to the
// training population when any episode it compared is training-time.
func winRatesIn(ctx context.Context, st *results.Store, runID string, confidence float64, units []string, training bool) ([]WinRate, error) {
	if confidence == 0 {
		confidence = 0.95
	}
	cs, err := st.Comparisons(ctx, runID)
	if err != nil {
		return nil, err
	}
	var modes map[int64]string
	if len(cs) > 0 {
		if modes, err = st.TrainingEpisodes(ctx, runID); err != nil {
			return nil, err
		}
	}
	var hp []results.HumanPreference
	if units == nil {
		if hp, err = st.HumanPreferences(ctx, runID); err != nil {
			return nil, err
		}
	}
	in := make(map[string]bool, len(units))
	for _, u := range units {
		in[u] = true
	}
	keep, columns := comparisonSources(cs)
	choices := make([]Choice, 0, len(cs)+len(hp))
	var shown []results.Comparison
	var shownPops []string
	for _, c := range cs {
		if units != nil && !in[c.UnitFP] {
			continue
		}
		if !keep[c.Judge] {
			continue
		}
		pop := results.PopulationEvaluation
		for _, id := range c.EpisodeIDs {
			if m, ok := modes[id]; ok {
				pop = m
				break
			}
		}
		if pop != results.PopulationEvaluation && !training {
			continue
		}
		choices = append(choices, Choice{Source: c.Judge, Criterion: c.Criterion, Population: pop, Systems: c.Systems,
			Choice: c.Choice})
		shown, shownPops = append(shown, c), append(shownPops, pop)
	}
	choices = append(choices, majorityChoices(shown, shownPops, columns)...)
	for _, p := range hp {
		choices = append(choices, Choice{Source: "human", Systems: p.Systems, Choice: p.Choice})
	}
	return TallyWins(runID, choices, confidence), nil
}
