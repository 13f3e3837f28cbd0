package figures

import (
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Line is one series of a line plot; NaN Y values break it, and Lo/Hi
// (when given, NaN for none) draw its intervals.
type Line struct {
	Name      string
	X, Y      []float64
	Lo, Hi    []float64
	NoMarkers bool
}

// Lines draws series against a numeric x axis, or against categories
// (x = 0, 1, ... naming categories[x]) when categories is not nil. A
// legend names the series when there are several.
func Lines(id, title, xLabel, yLabel string, series []Line, categories []string) (Figure, error) {
	return LinesSized(id, title, xLabel, yLabel, series, categories, 460, 250)
}

// LinesSized is Lines at w × h points (a grid of small training curves).
func LinesSized(id, title, xLabel, yLabel string, series []Line, categories []string, w, h float64) (Figure, error) {
	p := newPlot(title, xLabel, yLabel)
	for k, s := range series {
		col := colorOf(k)
		var first *plotter.Line
		for _, seg := range segments(s.X, s.Y) {
			l, err := plotter.NewLine(seg)
			if err != nil {
				return Figure{}, err
			}
			l.LineStyle = draw.LineStyle{Color: col, Width: vg.Points(1.5)}
			p.Add(l)
			if first == nil {
				first = l
			}
			if !s.NoMarkers || len(seg) == 1 {
				sc, err := plotter.NewScatter(seg)
				if err != nil {
					return Figure{}, err
				}
				sc.GlyphStyle = draw.GlyphStyle{Color: col, Radius: vg.Points(2.5), Shape: draw.CircleGlyph{}}
				p.Add(sc)
			}
		}
		if eb := intervals(s); eb != nil {
			eb.LineStyle = draw.LineStyle{Color: col, Width: vg.Points(1)}
			p.Add(eb)
		}
		if first != nil && len(series) > 1 {
			p.Legend.Add(s.Name, first)
		}
	}
	if categories != nil {
		p.NominalX(categories...)
	} else {
		padX(p)
	}
	legend := 0
	if len(series) > 1 {
		legend = len(series)
	}
	padY(p, legend, h)
	return render(p, id, "lines", vg.Points(w), vg.Points(h))
}

// padX widens a numeric x axis by 4 % on each side: the autoscaled range
// ends at the first and last step, whose markers would then be cut in
// half at the figure's edge.
func padX(p *plot.Plot) {
	span := p.X.Max - p.X.Min
	if span <= 0 {
		span = 1
	}
	p.X.Min -= 0.04 * span
	p.X.Max += 0.04 * span
}

// padY gives the y axis a margin and, when a legend is drawn (legend
// entries, at the top right), a band above the data as tall as the
// legend, so no curve runs under its names. A constant series gets a
// range around its value (the autoscaled ±1 would label 0.005 as 0.0).
// h is the figure's height in points.
func padY(p *plot.Plot, legend int, h float64) {
	lo, hi := p.Y.Min, p.Y.Max
	span := hi - lo
	if span <= 0 || math.IsInf(span, 0) || math.IsNaN(span) {
		span = math.Max(math.Abs(lo)*0.2, 1e-9)
		if lo == 0 {
			span = 1
		}
		lo, hi = lo-span/2, hi+span/2
	}
	lo, hi = lo-0.05*span, hi+0.05*span
	if legend > 0 {
		// The data area is the figure less its title and x axis (~60 pt);
		// each legend entry takes ~12 pt of it, plus a gap of 6 pt.
		area := math.Max(h-60, 60)
		q := math.Min((float64(legend)*12+6)/area, 0.6)
		hi += (hi - lo) * q / (1 - q)
	}
	p.Y.Min, p.Y.Max = lo, hi
}

// segments splits x, y into runs of finite points.
func segments(x, y []float64) []plotter.XYs {
	var out []plotter.XYs
	var cur plotter.XYs
	for i := range y {
		if i >= len(x) || math.IsNaN(y[i]) || math.IsInf(y[i], 0) {
			if len(cur) > 0 {
				out = append(out, cur)
			}
			cur = nil
			continue
		}
		cur = append(cur, plotter.XY{X: x[i], Y: y[i]})
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

// yErr is points with asymmetric errors for plotter.YErrorBars.
type yErr struct {
	plotter.XYs
	plotter.YErrors
}

// intervals is a series' error bars, or nil without any.
func intervals(s Line) *plotter.YErrorBars {
	var e yErr
	for i := range s.Y {
		if i >= len(s.Lo) || i >= len(s.Hi) || math.IsNaN(s.Lo[i]) || math.IsNaN(s.Hi[i]) || math.IsNaN(s.Y[i]) {
			continue
		}
		e.XYs = append(e.XYs, plotter.XY{X: s.X[i], Y: s.Y[i]})
		e.YErrors = append(e.YErrors, struct{ Low, High float64 }{s.Y[i] - s.Lo[i], s.Hi[i] - s.Y[i]})
	}
	if len(e.XYs) == 0 {
		return nil
	}
	eb, err := plotter.NewYErrorBars(e)
	if err != nil {
		return nil
	}
	return eb
}

// Interval is a value with its interval (NaN bounds: none).
type Interval struct{ Mean, Lo, Hi float64 }
