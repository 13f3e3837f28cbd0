package figures

import (
	"image/color"
	"math"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// ForestRow is one paired difference with its interval.
type ForestRow struct {
	Label        string
	Mean, Lo, Hi float64
}

// Forest draws a forest plot: one row per difference (the first on top),
// a point at its mean, a whisker over its interval, and a dashed line at
// zero; rows whose interval excludes zero are drawn in the first colour,
// the others in grey.
func Forest(id, title, xLabel string, rows []ForestRow) (Figure, error) {
	p := newPlot(title, xLabel, "")
	n := len(rows)
	labels := make([]string, n)
	lo, hi := 0.0, 0.0
	for i, r := range rows {
		labels[n-1-i] = r.Label
		for _, v := range []float64{r.Mean, r.Lo, r.Hi} {
			if !math.IsNaN(v) {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
	}
	grey := color.RGBA{0x8a, 0x8a, 0x8a, 0xff}
	for i, r := range rows {
		if math.IsNaN(r.Mean) {
			continue
		}
		y := float64(n - 1 - i)
		col := grey
		if !math.IsNaN(r.Lo) && (r.Lo > 0 || r.Hi < 0) {
			col = palette[0]
		}
		pt := plotter.XYs{{X: r.Mean, Y: y}}
		sc, err := plotter.NewScatter(pt)
		if err != nil {
			return Figure{}, err
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: col, Radius: vg.Points(3.5), Shape: draw.BoxGlyph{}}
		if !math.IsNaN(r.Lo) && !math.IsNaN(r.Hi) {
			wl, err := plotter.NewLine(plotter.XYs{{X: r.Lo, Y: y}, {X: r.Hi, Y: y}})
			if err != nil {
				return Figure{}, err
			}
			wl.LineStyle = draw.LineStyle{Color: col, Width: vg.Points(1.5)}
			p.Add(wl)
		}
		p.Add(sc)
	}
	zero, err := plotter.NewLine(plotter.XYs{{X: 0, Y: -0.5}, {X: 0, Y: float64(n) - 0.5}})
	if err != nil {
		return Figure{}, err
	}
	zero.LineStyle = draw.LineStyle{Color: blackish, Width: vg.Points(0.8), Dashes: []vg.Length{vg.Points(3), vg.Points(3)}}
	p.Add(zero)
	p.NominalY(labels...)
	pad := math.Max((hi-lo)*0.08, 1e-9)
	p.X.Min, p.X.Max = lo-pad, hi+pad
	return render(p, id, "forest", vg.Points(520), vg.Points(math.Max(140, float64(n)*22+80)))
}
