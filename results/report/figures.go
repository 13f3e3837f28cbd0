package report

import (
	"fmt"
	"math"

	"mascot.dev/mascot/results"
	"mascot.dev/mascot/results/figures"
)

// Figures draws a report's tables: per table, its criteria (and Overall)
// as grouped bars, one bar per system × split row, with the rows'
// confidence intervals as whiskers.
func Figures(rep *Report) ([]figures.Figure, error) {
	var out []figures.Figure
	for _, t := range rep.Tables {
		cats := make([]string, len(t.Criteria))
		for i, c := range t.Criteria {
			cats[i] = results.CriterionName(c)
		}
		splits := map[string]bool{}
		for _, r := range t.Rows {
			splits[r.Split] = true
		}
		var series []figures.BarSeries
		for _, r := range t.Rows {
			name := SystemLabel(r.System, r.Population)
			if len(splits) > 1 {
				name += " · " + r.Split
			}
			s := figures.BarSeries{Name: name}
			for _, c := range r.Cells {
				v, lo, hi := c.Mean, c.CILow, c.CIHigh
				if c.N == 0 {
					v, lo, hi = math.NaN(), math.NaN(), math.NaN()
				}
				s.Values, s.Lo, s.Hi = append(s.Values, v), append(s.Lo, lo), append(s.Hi, hi)
			}
			series = append(series, s)
		}
		yLabel := "score (0-100)"
		if t.Level == results.LevelMetric {
			yLabel = "value"
		}
		title := fmt.Sprintf("%s — %s", t.Title, runTitle(rep, t.RunID))
		f, err := figures.Bars(figures.Slug("bars "+t.RunID+" "+t.Level), title, yLabel, cats, series)
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, nil
}

// ComparisonFigures draws a comparison as forest plots, one per level: a
// row per criterion (per split, when there are several) with the paired
// difference A − B and its interval.
func ComparisonFigures(c *Comparison) ([]figures.Figure, error) {
	var out []figures.Figure
	for _, t := range c.Paired {
		var rows []figures.ForestRow
		for _, r := range t.Rows {
			for i, name := range t.Criteria {
				label := results.CriterionName(name)
				if len(t.Rows) > 1 {
					label = fmt.Sprintf("%s (%s, %s)", label, r.System, r.Split)
				}
				cell := r.Cells[i]
				if cell.N == 0 {
					continue
				}
				rows = append(rows, figures.ForestRow{Label: label, Mean: cell.MeanDiff, Lo: cell.CILow, Hi: cell.CIHigh})
			}
		}
		if len(rows) == 0 {
			continue
		}
		title := fmt.Sprintf("%s: %s − %s", t.Title, runLabel(c.A), runLabel(c.B))
		f, err := figures.Forest(figures.Slug("forest "+c.A.ID+" "+c.B.ID+" "+t.Level), title,
			fmt.Sprintf("paired difference A − B, %.0f%% bootstrap CI", 100*c.Options.Confidence), rows)
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, nil
}
