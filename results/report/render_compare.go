package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"

	"mascot.dev/mascot/results"
)

// RenderComparison writes a comparison as text, markdown, CSV or JSON.
func RenderComparison(w io.Writer, c *Comparison, format string) error {
	switch format {
	case FormatText, "", "terminal":
		return renderCompareGrid(w, c, textGrid{})
	case FormatMarkdown, "md":
		return renderCompareGrid(w, c, mdGrid{})
	case FormatCSV:
		return renderCompareCSV(w, c)
	case FormatJSON:
		return writeJSON(w, c)
	}
	return fmt.Errorf("rendering comparison: unknown format %q (want %s)", format, strings.Join(Formats, ", "))
}

func fmtPaired(p PairedStat) string {
	if p.N == 0 {
		return "–"
	}
	return FormatDiff(p) + " d=" + Number(p.Dz)
}

func sign(x float64) string {
	if x < 0 {
		return "−"
	}
	return "+"
}

func runLabel(r RunInfo) string {
	if r.Name != "" && r.Name != r.ID {
		return r.Name + " (" + r.ID + ")"
	}
	return r.ID
}

func renderCompareGrid(w io.Writer, c *Comparison, g grid) error {
	fmt.Fprintf(w, "A = %s\nB = %s\npaired on %s; cells: mean(A − B) [%.0f%% bootstrap CI] d=Cohen's d_z\n\n",
		runLabel(c.A), runLabel(c.B), c.Pairing, 100*c.Options.Confidence)
	for _, t := range c.Paired {
		header := []string{"System", "Split", "N"}
		for _, c := range t.Criteria {
			header = append(header, results.CriterionName(c))
		}
		var rows [][]string
		for _, r := range t.Rows {
			row := []string{r.System, r.Split, strconv.Itoa(r.N)}
			for _, cell := range r.Cells {
				row = append(row, fmtPaired(cell))
			}
			rows = append(rows, row)
		}
		if err := g.table(w, t.Title+", A − B", header, rows); err != nil {
			return err
		}
	}
	if len(c.Counters) > 0 {
		var rows [][]string
		for _, d := range c.Counters {
			rows = append(rows, []string{d.Name, strconv.FormatInt(d.A, 10), strconv.FormatInt(d.B, 10),
				strconv.FormatInt(d.Delta, 10)})
		}
		if err := g.table(w, "Counters", []string{"Counter", "A", "B", "A − B"}, rows); err != nil {
			return err
		}
	}
	return nil
}

// CompareCSVHeader is the header of RenderComparison's CSV output; counter
// lines put the counter name in criterion and A, B, A − B in mean_a,
// mean_b, mean_diff.
var CompareCSVHeader = []string{"table", "level", "system", "split", "criterion", "n", "mean_a", "mean_b",
	"mean_diff", "sd_diff", "ci_low", "ci_high", "d_z"}

func renderCompareCSV(w io.Writer, c *Comparison) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(CompareCSVHeader); err != nil {
		return err
	}
	for _, t := range c.Paired {
		for _, r := range t.Rows {
			for i, p := range r.Cells {
				if err := cw.Write([]string{"paired", t.Level, r.System, r.Split, t.Criteria[i], strconv.Itoa(p.N),
					csvNum(p.MeanA), csvNum(p.MeanB), csvNum(p.MeanDiff), csvNum(p.SDDiff), csvNum(p.CILow),
					csvNum(p.CIHigh), csvNum(p.Dz)}); err != nil {
					return err
				}
			}
		}
	}
	for _, d := range c.Counters {
		if err := cw.Write([]string{"counter", "", "", "", d.Name, "", strconv.FormatInt(d.A, 10), strconv.FormatInt(d.B, 10),
			strconv.FormatInt(d.Delta, 10), "", "", "", ""}); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
