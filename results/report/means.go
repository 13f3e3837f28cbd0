package report

import (
	"strings"

	"mascot.dev/mascot/results"
)

// ColumnMeans sums a report up to one number per column: the N-weighted
// mean of the column's cells over every row (systems and splits), which is
// the mean over every episode with a value. Keys are the lower-cased
// column names: criterion ids and metric names, and "<level> overall" for
// the Overall of a judged level ("agent overall", "collective overall").
// With several runs, a column's cells of every run are pooled.
func ColumnMeans(rep *Report) map[string]float64 {
	sum, n := map[string]float64{}, map[string]int{}
	for _, t := range rep.Tables {
		for i, name := range t.Criteria {
			key := strings.ToLower(name)
			if name == Overall && t.Level != results.LevelMetric {
				key = t.Level + " overall"
			}
			for _, row := range t.Rows {
				if c := row.Cells[i]; c.N > 0 {
					sum[key] += c.Mean * float64(c.N)
					n[key] += c.N
				}
			}
		}
	}
	out := make(map[string]float64, len(sum))
	for k, s := range sum {
		out[k] = s / float64(n[k])
	}
	return out
}
