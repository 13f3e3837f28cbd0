package report

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// golden compares got with testdata/name; UPDATE_GOLDEN=1 rewrites it.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if os.Getenv("UPDATE_GOLDEN") != "" {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (UPDATE_GOLDEN=1 writes it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from its golden file (UPDATE_GOLDEN=1 rewrites it after a deliberate change); got:\n%s", name, got)
	}
}

// TestReportHTMLAndLaTeXGolden: `report --format html|latex` of the
// fixture's two runs, byte for byte. The page is self-contained: no
// script, and nothing it loads.
func TestReportHTMLAndLaTeXGolden(t *testing.T) {
	s := openStore(t)
	addRun(t, s, "A", fixtureA)
	addRun(t, s, "B", fixtureB)
	ctx := context.Background()
	rep, err := Build(ctx, s, []string{"A", "B"}, Options{Resamples: 200})
	if err != nil {
		t.Fatal(err)
	}
	cmp, err := Compare(ctx, s, "A", "B", Options{Resamples: 200})
	if err != nil {
		t.Fatal(err)
	}
	var page bytes.Buffer
	if err := RenderHTML(&page, HTMLPage{Report: rep, Comparisons: []*Comparison{cmp}}); err != nil {
		t.Fatal(err)
	}
	html := page.String()
	if strings.Contains(html, "<script") || regexp.MustCompile(`(src|href)=`).MatchString(html) {
		t.Error("the page loads something or runs a script")
	}
	for _, want := range []string{`<figure class="plot plot-bars" id="bars-a-agent">`, `class="plot plot-forest"`,
		"<th>Empathetic Support Quality</th>", "<svg "} {
		if !strings.Contains(html, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	golden(t, "report.html", page.Bytes())

	var tex bytes.Buffer
	if err := Render(&tex, rep, FormatLaTeX); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`\toprule`, `\midrule`, `\bottomrule`, `$\pm$`, `\label{tab:b-agent}`} {
		if !strings.Contains(tex.String(), want) {
			t.Errorf("LaTeX lacks %q:\n%s", want, tex.String())
		}
	}
	golden(t, "report.tex", tex.Bytes())
}

// The best system of a split is bold in each column; names are escaped.
func TestLaTeXBoldsTheBestSystemOfASplit(t *testing.T) {
	st := func(m float64) Stat { return Stat{N: 3, Mean: m, Std: 1, CILow: m - 1, CIHigh: m + 1} }
	rep := &Report{Runs: []RunInfo{{ID: "r", Name: "paper/x_y"}}, Tables: []Table{{RunID: "r", Level: "agent", Title: "Per-agent",
		Criteria: []string{"empathetic_support", "Overall"}, Rows: []Row{
			{System: "mascot", Split: "positive", N: 3, Cells: []Stat{st(70), st(60)}},
			{System: "zero_shot", Split: "positive", N: 3, Cells: []Stat{st(50), st(65)}},
			{System: "mascot", Split: "negative", N: 3, Cells: []Stat{st(40), st(40)}}}}}}
	var b bytes.Buffer
	if err := RenderLaTeX(&b, rep); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`mascot & positive & 3 & \textbf{70.0} $\pm$ 1.0 & 60.0 $\pm$ 1.0 \\`,
		`zero\_shot & positive & 3 & 50.0 $\pm$ 1.0 & \textbf{65.0} $\pm$ 1.0 \\`,
		`mascot & negative & 3 & 40.0 $\pm$ 1.0 & 40.0 $\pm$ 1.0 \\`, `paper/x\_y (r)`} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("LaTeX lacks %q:\n%s", want, b.String())
		}
	}
}
