package report

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"
	"unicode"
	"unicode/utf8"

	"mascot.dev/mascot/results"
)

// Formats accepted by Render and RenderComparison.
const (
	FormatText     = "text"
	FormatMarkdown = "markdown"
	FormatCSV      = "csv"
	FormatJSON     = "json"
)

// Formats lists the output formats.
var Formats = []string{FormatText, FormatMarkdown, FormatCSV, FormatJSON}

// ReportFormats are Render's formats: Formats, a self-contained HTML page
// and LaTeX tables.
var ReportFormats = append(append([]string(nil), Formats...), FormatHTML, FormatLaTeX)

// Render writes a report as aligned terminal text, markdown, CSV or JSON.
func Render(w io.Writer, rep *Report, format string) error {
	switch format {
	case FormatText, "", "terminal":
		return renderGrid(w, rep, textGrid{})
	case FormatMarkdown, "md":
		return renderGrid(w, rep, mdGrid{})
	case FormatCSV:
		return renderCSV(w, rep)
	case FormatJSON:
		return writeJSON(w, rep)
	case FormatHTML:
		return RenderHTML(w, HTMLPage{Report: rep})
	case FormatLaTeX, "tex":
		return RenderLaTeX(w, rep)
	}
	return fmt.Errorf("rendering report: unknown format %q (want %s)", format, strings.Join(ReportFormats, ", "))
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("writing JSON: %w", err)
	}
	return nil
}

// fmtStat is "mean ± std [lo, hi]" (the interval only when computed),
// with the decimals of the one rule (format.go).
func fmtStat(s Stat) string { return FormatStat(s) }

// grid abstracts the two table styles.
type grid interface {
	table(w io.Writer, title string, header []string, rows [][]string) error
}

// Shown renders a name from a spec, a plugin or the database for a
// terminal: as is when it is plain text, Go-quoted when it holds a control
// character or invalid UTF-8, so an escape sequence in a run name
// (clearing the screen, setting the window title) is printed, not obeyed.
func Shown(s string) string {
	if strings.IndexFunc(s, func(r rune) bool { return unicode.IsControl(r) || r == utf8.RuneError }) < 0 {
		return s
	}
	return strconv.Quote(s)
}

// shownCells applies Shown to every cell: the text and markdown tables
// go to terminals.
func shownCells(title string, header []string, rows [][]string) (string, []string, [][]string) {
	h := make([]string, len(header))
	for i, c := range header {
		h[i] = Shown(c)
	}
	rs := make([][]string, len(rows))
	for i, r := range rows {
		rs[i] = make([]string, len(r))
		for j, c := range r {
			rs[i][j] = Shown(c)
		}
	}
	return Shown(title), h, rs
}

type textGrid struct{}

func (textGrid) table(w io.Writer, title string, header []string, rows [][]string) error {
	title, header, rows = shownCells(title, header, rows)
	fmt.Fprintf(w, "%s\n", title)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(header, "\t"))
	seps := make([]string, len(header))
	for i, h := range header {
		seps[i] = strings.Repeat("-", len([]rune(h)))
	}
	fmt.Fprintln(tw, strings.Join(seps, "\t"))
	for _, r := range rows {
		fmt.Fprintln(tw, strings.Join(r, "\t"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintln(w)
	return err
}

type mdGrid struct{}

func mdEscape(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

func (mdGrid) table(w io.Writer, title string, header []string, rows [][]string) error {
	title, header, rows = shownCells(title, header, rows)
	fmt.Fprintf(w, "### %s\n\n", mdEscape(title))
	line := func(cells []string) {
		esc := make([]string, len(cells))
		for i, c := range cells {
			esc[i] = mdEscape(c)
		}
		fmt.Fprintf(w, "| %s |\n", strings.Join(esc, " | "))
	}
	line(header)
	seps := make([]string, len(header))
	for i := range seps {
		seps[i] = "---"
		if i >= 2 {
			seps[i] = "---:"
		}
	}
	fmt.Fprintf(w, "|%s|\n", strings.Join(seps, "|"))
	for _, r := range rows {
		line(r)
	}
	_, err := fmt.Fprintln(w)
	return err
}

func runTitle(rep *Report, id string) string {
	for _, r := range rep.Runs {
		if r.ID == id {
			if r.Name != "" && r.Name != r.ID {
				return Shown(r.Name) + " (" + r.ID + ")"
			}
			return r.ID
		}
	}
	return id
}

func renderGrid(w io.Writer, rep *Report, g grid) error {
	if len(rep.Tables) == 0 && len(rep.WinRates) == 0 && rep.CrossRun == nil {
		_, err := fmt.Fprintln(w, "no judgments, metrics or comparisons recorded for these runs")
		return err
	}
	for _, t := range rep.Tables {
		header := []string{"System", "Split", "N"}
		for _, c := range t.Criteria {
			header = append(header, results.CriterionName(c))
		}
		rows := make([][]string, len(t.Rows))
		for i, r := range t.Rows {
			row := []string{SystemLabel(r.System, r.Population), r.Split, strconv.Itoa(r.N)}
			for _, c := range r.Cells {
				row = append(row, fmtStat(c))
			}
			rows[i] = row
		}
		title := fmt.Sprintf("%s — %s, mean ± std [%.0f%% bootstrap CI]", t.Title, runTitle(rep, t.RunID),
			100*rep.Options.Confidence)
		if err := g.table(w, title, header, rows); err != nil {
			return err
		}
	}
	if err := renderJudgeGrids(rep, func(title string, header []string, rows [][]string) error {
		return g.table(w, title, header, rows)
	}); err != nil {
		return err
	}
	if len(rep.WinRates) > 0 {
		header := []string{"Run", "Source", "Kind", "Criterion", "System", "Shown", "Wins", "Ties", "Win rate"}
		var rows [][]string
		for _, wr := range rep.WinRates {
			rows = append(rows, []string{wr.RunID, wr.Source, wr.Kind, wr.Criterion, SystemLabel(wr.System, wr.Population),
				strconv.Itoa(wr.Shown),
				strconv.Itoa(wr.Wins), strconv.Itoa(wr.Ties),
				FormatRate(wr.Rate, wr.CILow, wr.CIHigh)})
		}
		title := fmt.Sprintf("Win rates, %.0f%% Wilson CI", 100*rep.Options.Confidence)
		if err := g.table(w, title, header, rows); err != nil {
			return err
		}
	}
	return renderCrossRun(w, rep.CrossRun, rep.Options.Confidence, g)
}

// SystemLabel is how tables name a row's system: the system, with
// "(training: MODE)" for rows of training-time episodes and "(chat)" for
// the conversations people had with the run's system.
func SystemLabel(system, population string) string {
	switch population {
	case "":
		return system
	case results.ModeChat:
		return system + " (chat)"
	}
	return system + " (training: " + population + ")"
}

func csvNum(x float64) string {
	if math.IsNaN(x) {
		return ""
	}
	return strconv.FormatFloat(x, 'g', 10, 64)
}

// CSVHeader is the header of Render's CSV output (long format: one line
// per cell; win-rate lines put source in level, kind in split, shown in n
// and the rate in mean; population is empty for evaluation episodes, else
// the training mode; the lines of several judges' tables are judgesCSV's).
var CSVHeader = []string{"table", "run_id", "level", "system", "split", "criterion", "n", "mean", "std",
	"ci_low", "ci_high", "wins", "ties", "population"}

func renderCSV(w io.Writer, rep *Report) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(CSVHeader); err != nil {
		return err
	}
	for _, t := range rep.Tables {
		for _, r := range t.Rows {
			for i, c := range r.Cells {
				if err := cw.Write([]string{"score", t.RunID, t.Level, r.System, r.Split, t.Criteria[i], strconv.Itoa(c.N),
					csvNum(c.Mean), csvNum(c.Std), csvNum(c.CILow), csvNum(c.CIHigh), "", "", r.Population}); err != nil {
					return err
				}
			}
		}
	}
	for _, wr := range rep.WinRates {
		if err := cw.Write([]string{"win_rate", wr.RunID, wr.Source, wr.System, wr.Kind, wr.Criterion, strconv.Itoa(wr.Shown),
			csvNum(wr.Rate), "", csvNum(wr.CILow), csvNum(wr.CIHigh), strconv.Itoa(wr.Wins), strconv.Itoa(wr.Ties),
			wr.Population}); err != nil {
			return err
		}
	}
	if err := judgesCSV(cw, rep); err != nil {
		return err
	}
	if err := crossRunCSV(cw, rep.CrossRun); err != nil {
		return err
	}
	cw.Flush()
	return cw.Error()
}
