package figures

import (
	"bytes"
	"fmt"
	"html"
	"html/template"
	"image/color"
	"regexp"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Figure is one drawn plot.
type Figure struct {
	// ID names the figure in a page (an element id) and as a file
	// (ID.svg); Kind is "bars", "lines" or "forest".
	ID, Kind, Title string
	// SVG is the standalone SVG document, without the XML prelude.
	SVG []byte
}

// HTML is the figure for inlining in a page: the SVG inside a figure
// element carrying its id and kind.
func (f Figure) HTML() template.HTML {
	return template.HTML(fmt.Sprintf(`<figure class="plot plot-%s" id="%s">%s<figcaption>%s</figcaption></figure>`,
		f.Kind, html.EscapeString(f.ID), f.SVG, html.EscapeString(f.Title)))
}

// palette is the series colours (colour-blind safe, Okabe–Ito).
var palette = []color.RGBA{
	{0x00, 0x72, 0xB2, 0xff}, {0xD5, 0x5E, 0x00, 0xff}, {0x00, 0x9E, 0x73, 0xff}, {0xCC, 0x79, 0xA7, 0xff},
	{0xE6, 0x9F, 0x00, 0xff}, {0x56, 0xB4, 0xE9, 0xff}, {0x00, 0x00, 0x00, 0xff},
}

func colorOf(i int) color.Color { return palette[i%len(palette)] }

// newPlot is a plot with mascot's fonts and title.
func newPlot(title, xLabel, yLabel string) *plot.Plot {
	p := plot.New()
	sans := font.Font{Typeface: "Liberation", Variant: "Sans"}
	for _, t := range []*text{{&p.Title.TextStyle.Font, 12}, {&p.X.Label.TextStyle.Font, 10}, {&p.Y.Label.TextStyle.Font, 10},
		{&p.X.Tick.Label.Font, 9}, {&p.Y.Tick.Label.Font, 9}, {&p.Legend.TextStyle.Font, 9}} {
		*t.f = font.From(sans, t.size)
	}
	p.Title.Text, p.X.Label.Text, p.Y.Label.Text = title, xLabel, yLabel
	p.Title.Padding = vg.Points(6)
	p.Legend.Top = true
	return p
}

type text struct {
	f    *font.Font
	size vg.Length
}

var (
	prelude = regexp.MustCompile(`(?s)^<\?xml[^>]*\?>\s*<!--.*?-->\s*`)
	styles  = regexp.MustCompile(`\sstyle="([^"]*)"`)
)

var attrEscaper = strings.NewReplacer(`&`, "&amp;", `"`, "&quot;", `<`, "&lt;")

// presentation turns an element's style attribute into SVG presentation
// attributes (fill="…" stroke="…"), which a Content-Security-Policy
// without 'unsafe-inline' styles (the viewer's) still applies; a style
// attribute it drops, and the shapes would be black. The font family
// gets fallbacks for a browser without Liberation.
func presentation(style []byte) []byte {
	var b bytes.Buffer
	for _, decl := range strings.Split(string(style), ";") {
		k, v, ok := strings.Cut(decl, ":")
		if !ok {
			continue
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if k == "font-family" {
			v = "'" + v + "',Arial,Helvetica,sans-serif"
		}
		fmt.Fprintf(&b, ` %s="%s"`, k, attrEscaper.Replace(v))
	}
	return b.Bytes()
}

// render draws p as an SVG of w × h points.
func render(p *plot.Plot, id, kind string, w, h vg.Length) (Figure, error) {
	c := vgsvg.New(w, h)
	p.Draw(draw.New(c))
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return Figure{}, fmt.Errorf("drawing %s: %w", id, err)
	}
	svg := prelude.ReplaceAll(b.Bytes(), nil)
	svg = styles.ReplaceAllFunc(svg, func(m []byte) []byte { return presentation(styles.FindSubmatch(m)[1]) })
	title := html.EscapeString(p.Title.Text)
	svg = bytes.Replace(svg, []byte("<svg "), []byte(fmt.Sprintf(`<svg class="plot-svg" role="img" aria-label="%s" `, title)), 1)
	if i := bytes.Index(svg, []byte(">")); i > 0 {
		svg = append(svg[:i+1:i+1], append([]byte("<title>"+title+"</title>"), svg[i+1:]...)...)
	}
	return Figure{ID: id, Kind: kind, Title: p.Title.Text, SVG: bytes.TrimSpace(svg)}, nil
}

// Slug makes an element id or file name of s.
func Slug(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	return strings.TrimRight(b.String(), "-")
}
