package report

import (
	"fmt"
	"html/template"
	"io"
	"strconv"

	"mascot.dev/mascot/results"
	"mascot.dev/mascot/results/figures"
)

// Formats beyond the text ones: a self-contained HTML page and LaTeX
// booktabs tables.
const (
	FormatHTML  = "html"
	FormatLaTeX = "latex"
)

// HTMLPage is what RenderHTML writes: a report, the comparisons of its
// later runs with its first (forest plots), and any further figures (a
// sweep's axis plots, training curves).
type HTMLPage struct {
	Report      *Report
	Comparisons []*Comparison
	Figures     []figures.Figure
	// Notes are preformatted sections after the figures (a sweep's table
	// and the account of its racing search).
	Notes []Note
}

// Note is a titled block of preformatted text.
type Note struct {
	Title, Text string
}

// htmlTable is one table of the page, with its figure.
type htmlTable struct {
	Title  string
	Header []string
	Rows   [][]string
	Figure template.HTML
}

// RenderHTML writes one self-contained page (inline style and SVG, no
// script, nothing fetched): each table of the report with its bar chart,
// then the forest plots of the comparisons and the further figures.
func RenderHTML(w io.Writer, pg HTMLPage) error {
	rep := pg.Report
	bars, err := Figures(rep)
	if err != nil {
		return err
	}
	var d struct {
		Title   string
		Tables  []htmlTable
		Figures []template.HTML
		Notes   []Note
	}
	d.Notes = pg.Notes
	d.Title = "mascot report"
	if len(rep.Runs) > 0 {
		d.Title = "Report — " + runLabel(rep.Runs[0])
	}
	for i, t := range rep.Tables {
		ht := htmlTable{Title: fmt.Sprintf("%s — %s, mean ± std [%.0f%% bootstrap CI]", t.Title, runTitle(rep, t.RunID),
			100*rep.Options.Confidence), Header: []string{"System", "Split", "N"}, Figure: bars[i].HTML()}
		for _, c := range t.Criteria {
			ht.Header = append(ht.Header, results.CriterionName(c))
		}
		for _, r := range t.Rows {
			row := []string{SystemLabel(r.System, r.Population), r.Split, strconv.Itoa(r.N)}
			for _, c := range r.Cells {
				row = append(row, fmtStat(c))
			}
			ht.Rows = append(ht.Rows, row)
		}
		d.Tables = append(d.Tables, ht)
	}
	_ = renderJudgeGrids(rep, func(title string, header []string, rows [][]string) error {
		d.Tables = append(d.Tables, htmlTable{Title: title, Header: header, Rows: rows})
		return nil
	})
	for _, c := range pg.Comparisons {
		fs, err := ComparisonFigures(c)
		if err != nil {
			return err
		}
		for _, f := range fs {
			d.Figures = append(d.Figures, f.HTML())
		}
	}
	for _, f := range pg.Figures {
		d.Figures = append(d.Figures, f.HTML())
	}
	return htmlPage.Execute(w, d)
}

var htmlPage = template.Must(template.New("report").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{{.Title}}</title>
<style>
body { font-family: system-ui, -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; margin: 2rem auto; max-width: 1100px; color: #1f2933; }
h1 { font-size: 1.4rem; } h2 { font-size: 1.05rem; margin-top: 2rem; }
table { border-collapse: collapse; margin: .5rem 0 1rem; font-size: .85rem; }
th, td { padding: .25rem .6rem; border-bottom: 1px solid #e4e7eb; text-align: right; white-space: nowrap; }
th:nth-child(-n+2), td:nth-child(-n+2) { text-align: left; }
thead th { border-bottom: 2px solid #52606d; }
figure.plot { margin: .5rem 0 1.5rem; } figure.plot svg { max-width: 100%; height: auto; }
figcaption { font-size: .8rem; color: #616e7c; }
</style>
</head>
<body>
<h1>{{.Title}}</h1>
{{range .Tables}}<section class="report-table">
<h2>{{.Title}}</h2>
<table>
<thead><tr>{{range .Header}}<th>{{.}}</th>{{end}}</tr></thead>
<tbody>{{range .Rows}}
<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>{{end}}
</tbody>
</table>
{{.Figure}}
</section>
{{end}}{{range .Figures}}{{.}}
{{end}}{{range .Notes}}<section class="note">
<h2>{{.Title}}</h2>
<pre>{{.Text}}</pre>
</section>
{{end}}{{if not .Tables}}<p>no judgments, metrics or comparisons recorded for these runs</p>
{{end}}</body>
</html>
`))
