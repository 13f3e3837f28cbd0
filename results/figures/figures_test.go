package figures

import (
	"bytes"
	"encoding/xml"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// wellFormed parses an SVG as XML and returns its text content.
func wellFormed(t *testing.T, svg []byte) string {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(svg))
	var text strings.Builder
	for {
		tok, err := d.Token()
		if err != nil {
			if err.Error() == "EOF" {
				break
			}
			t.Fatalf("SVG is not well-formed XML: %v\n%s", err, svg[:min(len(svg), 400)])
		}
		if cd, ok := tok.(xml.CharData); ok {
			text.Write(cd)
			text.WriteByte(' ')
		}
	}
	return text.String()
}

func TestFiguresDrawTheirLabels(t *testing.T) {
	nan := math.NaN()
	bars, err := Bars("crit", "Per-agent criteria", "score (0-100)", []string{"Empathy", "Consistency", "Overall"},
		[]BarSeries{{Name: "mascot", Values: []float64{70, 65, 67.5}, Lo: []float64{60, 55, 60}, Hi: []float64{80, 75, 75}},
			{Name: "zero-shot", Values: []float64{50, nan, 50}, Lo: []float64{nan, nan, nan}, Hi: []float64{nan, nan, nan}}})
	if err != nil {
		t.Fatal(err)
	}
	lines, err := Lines("loss", "loss", "step", "", []Line{{Name: "loss", X: []float64{1, 2, 3, 4}, Y: []float64{3, 2, nan, 1}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	forest, err := Forest("forest", "A − B", "paired difference", []ForestRow{{"Empathy", 5, 1, 9}, {"Overall", -1, -4, 2}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		f    Figure
		want []string
	}{{bars, []string{"Per-agent criteria", "Empathy", "Consistency", "mascot", "zero-shot"}},
		{lines, []string{"loss", "step", "4"}},
		{forest, []string{"A − B", "Empathy", "Overall", "paired difference"}}} {
		text := wellFormed(t, c.f.SVG)
		for _, w := range c.want {
			if !strings.Contains(text, w) {
				t.Errorf("%s lacks the text %q: %s", c.f.ID, w, text)
			}
		}
		if !bytes.HasPrefix(c.f.SVG, []byte("<svg ")) || bytes.Contains(c.f.SVG, []byte("<script")) {
			t.Errorf("%s is not a bare inline SVG", c.f.ID)
		}
		if !strings.Contains(string(c.f.HTML()), `id="`+c.f.ID+`"`) {
			t.Errorf("%s's HTML has no id", c.f.ID)
		}
		if dir := os.Getenv("MASCOT_FIGURES_OUT"); dir != "" { // to look at them
			_ = os.WriteFile(filepath.Join(dir, c.f.ID+".svg"), c.f.SVG, 0o644)
		}
	}
}

// A page whose Content-Security-Policy forbids inline styles (the
// viewer's) must still colour the plots: no style attributes.
func TestFiguresCarryNoStyleAttributes(t *testing.T) {
	f, err := Lines("x", "x", "", "", []Line{{Name: "a", X: []float64{1, 2}, Y: []float64{1, 2}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(f.SVG, []byte(" style=")) || !bytes.Contains(f.SVG, []byte(`font-family="'Liberation Sans',Arial`)) {
		t.Errorf("SVG keeps style attributes or lost its font family:\n%s", f.SVG[:min(len(f.SVG), 600)])
	}
}

// Bars draw each interval as a whisker with two caps: three strokes per
// finite interval beyond the same bars without intervals (a second series
// reaching 100 keeps the axis, and so its ticks, the same).
func TestBarsDrawTheirIntervals(t *testing.T) {
	nan := math.NaN()
	draw := func(lo, hi []float64) int {
		f, err := Bars("ci", "criteria", "score", []string{"Empathy", "Overall"},
			[]BarSeries{{Name: "mascot", Values: []float64{70, 60}, Lo: lo, Hi: hi},
				{Name: "zero-shot", Values: []float64{100, 100}}})
		if err != nil {
			t.Fatal(err)
		}
		return bytes.Count(f.SVG, []byte("<path"))
	}
	without := draw([]float64{nan, nan}, []float64{nan, nan})
	with := draw([]float64{60, nan}, []float64{80, nan})
	both := draw([]float64{60, 50}, []float64{80, 70})
	if with-without != 3 || both-without != 6 {
		t.Errorf("paths: %d without intervals, %d with one, %d with two; want 3 more per interval", without, with, both)
	}
}
