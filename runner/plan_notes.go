package runner

import (
	"fmt"
	"io"
	"strings"
)

// A stage's plan note is the whole reason its units could not be counted:
// a dataset that is not found, for one, lists every place looked and how
// to provide it on lines of their own. The table keeps one line per stage,
// so a note of several lines shows its first there and in full below the
// table (plan --format json carries it whole).

// noteLine is a note's first line, marked when the rest follows the table.
func noteLine(note string) string {
	first, rest, multi := strings.Cut(note, "\n")
	if multi && strings.TrimSpace(rest) != "" {
		return first + " [details below]"
	}
	return first
}

// printNoteDetails writes, after the table, every note of several lines in
// full, under its stage.
func printNoteDetails(w io.Writer, plan []PlanStage) {
	for _, p := range plan {
		if _, rest, multi := strings.Cut(p.Note, "\n"); !multi || strings.TrimSpace(rest) == "" {
			continue
		}
		fmt.Fprintf(w, "\n%s:\n", p.Key)
		for _, l := range strings.Split(strings.TrimRight(p.Note, "\n"), "\n") {
			fmt.Fprintf(w, "  %s\n", l)
		}
	}
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}
