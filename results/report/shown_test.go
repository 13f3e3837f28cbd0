package report

import (
	"bytes"
	"strings"
	"testing"
)

// TestTerminalTablesQuoteEscapes: a run name and a system label holding
// terminal escapes (clear screen, set the window title) are printed
// Go-quoted in the text and markdown tables, never raw.
func TestTerminalTablesQuoteEscapes(t *testing.T) {
	rep := &Report{Options: Options{Confidence: 0.95},
		Runs: []RunInfo{{ID: "r1", Name: "evil\x1b[2J\x1b]0;pwned\x07"}},
		Tables: []Table{{RunID: "r1", Level: "agent", Title: "Agent", Criteria: []string{"empathy"},
			Rows: []Row{{System: "sys\x1b[31m", Split: "test", N: 1, Cells: []Stat{{N: 1, Mean: 3}}}}}}}
	for _, format := range []string{FormatText, FormatMarkdown} {
		var b bytes.Buffer
		if err := Render(&b, rep, format); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		if strings.ContainsAny(out, "\x1b\x07") {
			t.Errorf("%s output holds a raw escape:\n%q", format, out)
		}
		for _, want := range []string{`"evil\x1b[2J\x1b]0;pwned\a" (r1)`, `"sys\x1b[31m"`} {
			if !strings.Contains(out, want) {
				t.Errorf("%s output lacks %s:\n%s", format, want, out)
			}
		}
	}
}
