package figures

import (
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// BarSeries is one series of grouped bars: a value per category with its
// interval (NaN bounds: none; a NaN value: no bar).
type BarSeries struct {
	Name           string
	Values, Lo, Hi []float64
}

// Bars draws grouped vertical bars: one group per category, one bar per
// series, with whiskers for the intervals.
func Bars(id, title, yLabel string, categories []string, series []BarSeries) (Figure, error) {
	p := newPlot(title, "", yLabel)
	gb := &groupedBars{n: len(series), cats: len(categories)}
	for k, s := range series {
		gb.series = append(gb.series, s)
		sw := draw.LineStyle{Color: colorOf(k), Width: vg.Points(6)}
		p.Legend.Add(s.Name, legendBox{sw.Color})
	}
	p.Add(gb)
	p.NominalX(categories...)
	p.X.Tick.Label.Rotation = math.Pi / 7
	p.X.Tick.Label.XAlign = draw.XRight
	p.X.Tick.Label.YAlign = draw.YCenter
	p.Y.Min = math.Min(0, p.Y.Min)
	p.Y.Max += 0.12 * (p.Y.Max - p.Y.Min) // room for the legend above the tallest whisker
	w := vg.Points(math.Max(420, float64(len(categories)*(len(series)*14+24))+90))
	return render(p, id, "bars", w, vg.Points(300))
}

// groupedBars draws the bars in data coordinates (category i spans
// [i-0.4, i+0.4]), so the whiskers sit on their bars whatever the size.
type groupedBars struct {
	series []BarSeries
	n      int
	cats   int
}

// Plot implements plot.Plotter.
func (g *groupedBars) Plot(c draw.Canvas, plt *plot.Plot) {
	tx, ty := plt.Transforms(&c)
	bw := 0.8 / float64(max(1, g.n))
	for k, s := range g.series {
		for i, v := range s.Values {
			if math.IsNaN(v) {
				continue
			}
			x0 := float64(i) - 0.4 + float64(k)*bw
			x1 := x0 + bw*0.9
			rect := c.ClipPolygonY([]vg.Point{{X: tx(x0), Y: ty(0)}, {X: tx(x1), Y: ty(0)}, {X: tx(x1), Y: ty(v)}, {X: tx(x0), Y: ty(v)}})
			c.FillPolygon(colorOf(k), rect)
			if i < len(s.Lo) && i < len(s.Hi) && !math.IsNaN(s.Lo[i]) && !math.IsNaN(s.Hi[i]) {
				xm := tx((x0 + x1) / 2)
				ls := draw.LineStyle{Color: blackish, Width: vg.Points(1)}
				c.StrokeLine2(ls, xm, ty(s.Lo[i]), xm, ty(s.Hi[i]))
				cap := vg.Points(3)
				c.StrokeLine2(ls, xm-cap, ty(s.Lo[i]), xm+cap, ty(s.Lo[i]))
				c.StrokeLine2(ls, xm-cap, ty(s.Hi[i]), xm+cap, ty(s.Hi[i]))
			}
		}
	}
}

// DataRange implements plot.DataRanger: every category, zero, and every
// bar and whisker end.
func (g *groupedBars) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, xmax, ymin, ymax = -0.5, float64(g.cats)-0.5, 0, 0
	for _, s := range g.series {
		for i, v := range s.Values {
			if math.IsNaN(v) {
				continue
			}
			ymin, ymax = math.Min(ymin, v), math.Max(ymax, v)
			if i < len(s.Lo) && !math.IsNaN(s.Lo[i]) {
				ymin = math.Min(ymin, s.Lo[i])
			}
			if i < len(s.Hi) && !math.IsNaN(s.Hi[i]) {
				ymax = math.Max(ymax, s.Hi[i])
			}
		}
	}
	if ymax == ymin {
		ymax = ymin + 1
	}
	return xmin, xmax, ymin, ymax
}
