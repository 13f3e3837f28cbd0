package runner

import (
	"fmt"
	"io"
	"sort"
	"strings"

	rep "mascot.dev/mascot/results/report"
)

// sweepColumns resolves the columns to print: the shown names, each the
// value key it names exactly, else every key ending in " "+name in sorted
// order ("overall" gives "agent overall" and "collective overall"); with
// nothing shown, every key of every child, sorted.
func sweepColumns(s *SweepSummary) []string {
	keys := map[string]bool{}
	for _, c := range s.Children {
		for k := range c.Values {
			keys[k] = true
		}
	}
	sorted := make([]string, 0, len(keys))
	for k := range keys {
		sorted = append(sorted, k)
	}
	sort.Strings(sorted)
	if len(s.Show) == 0 {
		return sorted
	}
	var cols []string
	for _, name := range s.Show {
		name = strings.ToLower(name)
		if keys[name] {
			cols = append(cols, name)
			continue
		}
		n := len(cols)
		for _, k := range sorted {
			if strings.HasSuffix(k, " "+name) {
				cols = append(cols, k)
			}
		}
		if len(cols) == n {
			cols = append(cols, name) // printed as "-"
		}
	}
	return cols
}

// labelWidth is the width of a VARIANT column holding every label.
func labelWidth(labels []string) int {
	w := len("VARIANT")
	for _, l := range labels {
		w = max(w, len(l))
	}
	return w
}

// PrintSweep renders the summary table: one row per variant, the axis
// values, then the shown columns; then the failed variants with their
// errors, and a racing search's account. It is a function of the
// summary alone, whose values are a function of the database.
func PrintSweep(w io.Writer, s *SweepSummary) {
	cols := sweepColumns(s)
	labels := make([]string, len(s.Children))
	for i, c := range s.Children {
		labels[i] = c.Variant.Label()
	}
	lw := labelWidth(labels)
	fmt.Fprintf(w, "sweep %s: %d variants, %d units ran, %d cached\n", s.ParentID, len(s.Children), s.Ran, s.Cached)
	fmt.Fprintf(w, "%-*s  %-24s", lw, "VARIANT", "RUN")
	widths := make([]int, len(cols))
	for i, c := range cols {
		widths[i] = max(8, len(c))
		fmt.Fprintf(w, " %*s", widths[i], c)
	}
	fmt.Fprintln(w)
	// Each column's decimals follow the report's rule over its values.
	decimals := make([]int, len(cols))
	for i, col := range cols {
		var vs []float64
		for _, c := range s.Children {
			if v, ok := c.Values[col]; ok {
				vs = append(vs, v)
			}
		}
		decimals[i] = rep.Decimals(vs...)
	}
	for i, c := range s.Children {
		id := "-"
		if c.Summary != nil {
			id = c.Summary.RunID
		}
		fmt.Fprintf(w, "%-*s  %-24s", lw, labels[i], id)
		for j, col := range cols {
			if v, ok := c.Values[col]; ok {
				fmt.Fprintf(w, " %*s", widths[j], rep.Num(v, decimals[j]))
			} else {
				fmt.Fprintf(w, " %*s", widths[j], "-")
			}
		}
		if c.Error != "" {
			fmt.Fprint(w, "  FAILED")
		}
		fmt.Fprintln(w)
	}
	if failed := s.Failed(); len(failed) > 0 {
		fmt.Fprintf(w, "\n%d of %d variants failed (rerun the same command to retry them; what succeeded is kept):\n",
			len(failed), len(s.Children))
		for _, c := range failed {
			fmt.Fprintf(w, "  %s: %s\n", c.Variant.Label(), failureLine(c.Error))
		}
	}
	if s.Race != nil {
		fmt.Fprintln(w)
		PrintRace(w, s.Race)
	}
}

// failureLine is a variant's error on one line. A run that fails lists
// each failed stage with its reason on lines of their own under "stage
// failed:" (stageFailures), so the first line alone says only that a
// stage failed; the lines are joined instead, less the closing advice to
// rerun, which the summary gives once.
func failureLine(s string) string {
	var out strings.Builder
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimSpace(l)
		switch {
		case l == "" || strings.HasPrefix(l, "(rerun "):
			continue
		case out.Len() == 0:
		case strings.HasSuffix(out.String(), ":"):
			out.WriteString(" ")
		default:
			out.WriteString("; ")
		}
		out.WriteString(l)
	}
	return out.String()
}
