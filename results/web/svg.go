package web

import (
	"fmt"
	"html/template"
	"math"
	"strings"
)

// series is one line of a chart.
type series struct {
	Name string
	X, Y []float64 // NaN Y values break the line
}

var palette = []string{"#1f5fbf", "#c2410c", "#15803d", "#7e22ce", "#b91c1c", "#0e7490", "#a16207"}

// lineChart draws series as an inline SVG line chart with axes, ticks and
// a legend. xLabels, when set, label integer x positions (categorical axes).
func lineChart(title string, ss []series, xLabels []string) template.HTML {
	const w, h, l, r, t, b = 520.0, 240.0, 56.0, 12.0, 24.0, 40.0
	xmin, xmax, ymin, ymax := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for _, s := range ss {
		for i, y := range s.Y {
			if math.IsNaN(y) || math.IsInf(y, 0) {
				continue
			}
			xmin, xmax = math.Min(xmin, s.X[i]), math.Max(xmax, s.X[i])
			ymin, ymax = math.Min(ymin, y), math.Max(ymax, y)
		}
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, `<svg class="chart" xmlns="http://www.w3.org/2000/svg" width="%g" height="%g" viewBox="0 0 %g %g" role="img" aria-label="%s">`,
		w, h, w, h, template.HTMLEscapeString(title))
	fmt.Fprintf(&sb, `<text x="%g" y="15" font-weight="600">%s</text>`, l, template.HTMLEscapeString(title))
	if math.IsInf(xmin, 1) {
		fmt.Fprintf(&sb, `<text x="%g" y="%g">no data</text></svg>`, w/2-20, h/2)
		return template.HTML(sb.String())
	}
	if xmax == xmin {
		xmin, xmax = xmin-1, xmax+1
	}
	if ymax == ymin {
		pad := math.Max(math.Abs(ymin)*0.1, 1e-9)
		ymin, ymax = ymin-pad, ymax+pad
	}
	px := func(x float64) float64 { return l + (x-xmin)/(xmax-xmin)*(w-l-r) }
	py := func(y float64) float64 { return h - b - (y-ymin)/(ymax-ymin)*(h-t-b) }
	fmt.Fprintf(&sb, `<line x1="%g" y1="%g" x2="%g" y2="%g" stroke="#9ca3af"/>`, l, h-b, w-r, h-b)
	fmt.Fprintf(&sb, `<line x1="%g" y1="%g" x2="%g" y2="%g" stroke="#9ca3af"/>`, l, t, l, h-b)
	for _, v := range ticks(ymin, ymax, 5) {
		fmt.Fprintf(&sb, `<line x1="%g" y1="%.1f" x2="%g" y2="%.1f" stroke="#eef1f5"/><text x="%g" y="%.1f" text-anchor="end">%s</text>`,
			l, py(v), w-r, py(v), l-4, py(v)+4, tickLabel(v))
	}
	if xLabels != nil {
		for i, lab := range xLabels {
			fmt.Fprintf(&sb, `<text x="%.1f" y="%g" text-anchor="middle">%s</text>`, px(float64(i)), h-b+14,
				template.HTMLEscapeString(shorten(lab, 14)))
		}
	} else {
		for _, v := range ticks(xmin, xmax, 6) {
			fmt.Fprintf(&sb, `<text x="%.1f" y="%g" text-anchor="middle">%s</text>`, px(v), h-b+14, tickLabel(v))
		}
	}
	for k, s := range ss {
		col := palette[k%len(palette)]
		var pts []string
		flush := func() {
			if len(pts) > 1 {
				fmt.Fprintf(&sb, `<polyline fill="none" stroke="%s" stroke-width="1.6" points="%s"/>`, col, strings.Join(pts, " "))
			} else if len(pts) == 1 {
				var x, y float64
				if _, err := fmt.Sscanf(pts[0], "%g,%g", &x, &y); err == nil {
					fmt.Fprintf(&sb, `<circle cx="%g" cy="%g" r="2.5" fill="%s"/>`, x, y, col)
				}
			}
			pts = pts[:0]
		}
		for i, y := range s.Y {
			if math.IsNaN(y) || math.IsInf(y, 0) {
				flush()
				continue
			}
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", px(s.X[i]), py(y)))
		}
		flush()
		fmt.Fprintf(&sb, `<rect x="%g" y="%g" width="10" height="3" fill="%s"/><text x="%g" y="%g">%s</text>`,
			l+float64(k)*120, h-12, col, l+float64(k)*120+14, h-8, template.HTMLEscapeString(shorten(s.Name, 16)))
	}
	sb.WriteString(`</svg>`)
	return template.HTML(sb.String())
}

// ticks returns about n round values spanning [lo, hi].
func ticks(lo, hi float64, n int) []float64 {
	span := hi - lo
	step := math.Pow(10, math.Floor(math.Log10(span/float64(n))))
	for _, m := range []float64{1, 2, 5, 10} {
		if span/(step*m) <= float64(n) {
			step *= m
			break
		}
	}
	var out []float64
	for v := math.Ceil(lo/step) * step; v <= hi+step*1e-9; v += step {
		out = append(out, v)
	}
	return out
}

func tickLabel(v float64) string {
	a := math.Abs(v)
	switch {
	case v == 0:
		return "0"
	case a >= 1e4 || a < 1e-3:
		return fmt.Sprintf("%.1e", v)
	case a >= 100:
		return fmt.Sprintf("%.0f", v)
	}
	return strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.4f", v), "0"), ".")
}
