package report

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"mascot.dev/mascot/results"
)

// RenderLaTeX writes each table of a report as a booktabs table, in the
// paper's layout: a row per system (and split), a column per criterion
// and Overall, each cell "mean ± std", the best mean of a column within a
// split in bold.
// The tables need \usepackage{booktabs}.
func RenderLaTeX(w io.Writer, rep *Report) error {
	if len(rep.Tables) == 0 {
		_, err := fmt.Fprintln(w, "% no judgments, metrics or comparisons recorded for these runs")
		return err
	}
	for _, t := range rep.Tables {
		splits := map[string]bool{}
		for _, r := range t.Rows {
			splits[r.Split] = true
		}
		withSplit := len(splits) > 1
		cols := "l"
		header := []string{"System"}
		if withSplit {
			cols += "l"
			header = append(header, "Split")
		}
		cols += "r"
		header = append(header, "$N$")
		for _, c := range t.Criteria {
			cols += "c"
			header = append(header, texEscape(results.CriterionName(c)))
		}
		// The best mean of a column among the systems of one split is
		// bold, as in the paper's tables (a split of one system has none).
		best, rowsOf := map[string][]float64{}, map[string]int{}
		for _, r := range t.Rows {
			rowsOf[r.Split]++
			if best[r.Split] == nil {
				best[r.Split] = make([]float64, len(t.Criteria))
				for i := range best[r.Split] {
					best[r.Split][i] = math.Inf(-1)
				}
			}
			for i, c := range r.Cells {
				if c.N > 0 && c.Mean > best[r.Split][i] {
					best[r.Split][i] = c.Mean
				}
			}
		}
		fmt.Fprintf(w, "\\begin{table}[t]\n\\centering\n\\small\n")
		fmt.Fprintf(w, "\\caption{%s --- %s (mean $\\pm$ std).}\n", texEscape(t.Title), texEscape(runTitle(rep, t.RunID)))
		fmt.Fprintf(w, "\\label{tab:%s}\n", labelOf(t.RunID+"-"+t.Level))
		fmt.Fprintf(w, "\\begin{tabular}{%s}\n\\toprule\n%s \\\\\n\\midrule\n", cols, strings.Join(header, " & "))
		prevSplit := ""
		for k, r := range t.Rows {
			if withSplit && k > 0 && r.Split != prevSplit && sortedBySplit(t.Rows) {
				fmt.Fprintln(w, "\\midrule")
			}
			prevSplit = r.Split
			cells := []string{texEscape(SystemLabel(r.System, r.Population))}
			if withSplit {
				cells = append(cells, texEscape(r.Split))
			}
			cells = append(cells, strconv.Itoa(r.N))
			for i, c := range r.Cells {
				cells = append(cells, texStat(c, rowsOf[r.Split] > 1 && c.N > 0 && c.Mean == best[r.Split][i]))
			}
			fmt.Fprintf(w, "%s \\\\\n", strings.Join(cells, " & "))
		}
		fmt.Fprintf(w, "\\bottomrule\n\\end{tabular}\n\\end{table}\n\n")
	}
	return nil
}

// sortedBySplit reports whether rows come grouped by split (a rule then
// separates the groups).
func sortedBySplit(rows []Row) bool {
	seen := map[string]bool{}
	prev := ""
	for _, r := range rows {
		if r.Split != prev && seen[r.Split] {
			return false
		}
		seen[r.Split], prev = true, r.Split
	}
	return true
}

// texStat is "mean $\pm$ std", bold when best; "--" without values.
func texStat(s Stat, bold bool) string {
	if s.N == 0 {
		return "--"
	}
	d := statDecimals(s) // the terminal table's rule (format.go)
	m := Num(s.Mean, d)
	if bold {
		m = "\\textbf{" + m + "}"
	}
	return m + " $\\pm$ " + Num(s.Std, d)
}

var texReplacer = strings.NewReplacer(`\`, `\textbackslash{}`, `&`, `\&`, `%`, `\%`, `$`, `\$`, `#`, `\#`,
	`_`, `\_`, `{`, `\{`, `}`, `\}`, `~`, `\textasciitilde{}`, `^`, `\textasciicircum{}`, "—", "---", "–", "--",
	"−", "$-$", "±", "$\\pm$", "·", "$\\cdot$")

// texEscape makes s safe in LaTeX text.
func texEscape(s string) string { return texReplacer.Replace(s) }

// labelOf is a \label key: letters, digits and dashes.
func labelOf(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('-')
		}
	}
	return b.String()
}
