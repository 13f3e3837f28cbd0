package rubric

import (
	"mascot.dev/mascot/plugins/sdk"
	"mascot.dev/mascot/plugins/stats"
)

// agreement computes, per criterion, Krippendorff's alpha (interval and
// ordinal) between the judges over the scored items of a batch, and Cohen's
// kappa when there are exactly two judges. Nothing is reported for a single
// judge or where the statistic is undefined.
func agreement(results []sdk.ItemResult, judges []string) []sdk.Statistic {
	if len(judges) < 2 {
		return nil
	}
	type key struct{ crit, judge string }
	var order []string
	seen := map[string]bool{}
	byItem := make([]map[key]float64, len(results))
	for i, r := range results {
		byItem[i] = map[key]float64{}
		for _, s := range r.Scores {
			if s.Judge == "" {
				continue
			}
			byItem[i][key{s.CriterionID, s.Judge}] = s.Raw
			if !seen[s.CriterionID] {
				seen[s.CriterionID] = true
				order = append(order, s.CriterionID)
			}
		}
	}
	var out []sdk.Statistic
	for _, crit := range order {
		var units [][]float64
		var a, b []float64
		for _, m := range byItem {
			var u []float64
			for _, jn := range judges {
				if v, ok := m[key{crit, jn}]; ok {
					u = append(u, v)
				}
			}
			units = append(units, u)
			if len(judges) == 2 && len(u) == 2 {
				a, b = append(a, u[0]), append(b, u[1])
			}
		}
		if v, n, ok := stats.KrippendorffAlpha(units, stats.Interval); ok {
			out = append(out, sdk.Statistic{Name: "krippendorff_alpha_interval", CriterionID: crit, Value: v, N: n})
		}
		if v, n, ok := stats.KrippendorffAlpha(units, stats.Ordinal); ok {
			out = append(out, sdk.Statistic{Name: "krippendorff_alpha_ordinal", CriterionID: crit, Value: v, N: n})
		}
		if k, ok := stats.CohenKappa(a, b); ok {
			out = append(out, sdk.Statistic{Name: "cohen_kappa", CriterionID: crit, Value: k, N: len(a)})
		}
	}
	return out
}
