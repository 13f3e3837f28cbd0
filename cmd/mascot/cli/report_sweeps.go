package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"mascot.dev/mascot/results"
	"mascot.dev/mascot/results/report"
	"mascot.dev/mascot/runner"
)

// sweepNotes are the sweeps among runs ids, each as the sweep printed it
// when it ended (its parent run keeps the summary): a row per variant,
// the failed ones with why, and a racing search's rounds, the variants it
// stopped (after which round, on what evidence) and what it spent. A
// sweep's own tables are its children's, so without this its report
// would say nothing of it.
func sweepNotes(ctx context.Context, s *results.Store, ids []string) ([]report.Note, error) {
	var notes []report.Note
	for _, id := range ids {
		run, err := s.GetRun(ctx, id)
		if err != nil {
			return nil, err
		}
		var sum runner.SweepSummary
		if len(run.Summary) == 0 || json.Unmarshal(run.Summary, &sum) != nil || sum.ParentID != run.ID || len(sum.Children) == 0 {
			continue
		}
		var b strings.Builder
		runner.PrintSweep(&b, &sum)
		notes = append(notes, report.Note{Title: "Sweep " + run.Name, Text: b.String()})
	}
	return notes, nil
}

// printNotes writes the notes after a text or markdown report; the other
// formats are tables for programs and papers, and leave them out.
func printNotes(w io.Writer, format string, notes []report.Note) error {
	fence := ""
	switch format {
	case report.FormatText, "terminal", "":
	case report.FormatMarkdown, "md":
		fence = "```\n"
	default:
		return nil
	}
	for _, n := range notes {
		title := n.Title
		if fence != "" {
			title = "## " + title
		}
		if _, err := fmt.Fprintf(w, "\n%s\n\n%s%s%s", title, fence, n.Text, fence); err != nil {
			return err
		}
	}
	return nil
}
