package stats

import "mascot.dev/mascot/plugins/spec"

// WinRate counts one system's comparison outcomes.
type WinRate struct {
	Wins, Ties, Losses, N int
	// Rate is Wins/N; TieRate is Ties/N.
	Rate, TieRate float64
}

// WinRates tallies, per system, the comparisons of items (kind comparison)
// won, tied and lost according to results, for one judge ("" = pooled) and
// one criterion ("overall" for the rubric's comparison mode). Failed results
// and items without a matching preference are skipped.
func WinRates(items []spec.Item, results []spec.ItemResult, judge, criterion string) map[string]WinRate {
	byID := make(map[string]spec.ItemResult, len(results))
	for _, r := range results {
		byID[r.ItemID] = r
	}
	out := map[string]WinRate{}
	for _, it := range items {
		r, ok := byID[it.ID]
		if !ok || r.Failed || it.Kind != spec.KindComparison {
			continue
		}
		for _, p := range r.Preferences {
			if p.Judge != judge || p.CriterionID != criterion {
				continue
			}
			for _, alt := range it.Alternatives {
				w := out[alt.System]
				w.N++
				switch p.WinnerID {
				case "":
					w.Ties++
				case alt.ID:
					w.Wins++
				default:
					w.Losses++
				}
				out[alt.System] = w
			}
		}
	}
	for k, w := range out {
		w.Rate = float64(w.Wins) / float64(w.N)
		w.TieRate = float64(w.Ties) / float64(w.N)
		out[k] = w
	}
	return out
}
