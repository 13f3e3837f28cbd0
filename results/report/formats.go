package report

import (
	"fmt"
	"slices"
	"strings"
)

// formatAliases are other names Render and RenderComparison accept.
var formatAliases = map[string]string{"": FormatText, "terminal": FormatText, "md": FormatMarkdown, "tex": FormatLaTeX}

// CheckFormat says whether Render (report) or RenderComparison (compare,
// with only Formats) can write format, so a command refuses a bad
// --format before it opens a database or computes anything.
func CheckFormat(format string, compare bool) error {
	f := format
	if a, ok := formatAliases[f]; ok {
		f = a
	}
	known := ReportFormats
	if compare {
		known = Formats
	}
	if slices.Contains(known, f) {
		return nil
	}
	return fmt.Errorf("unknown format %q (want %s)", format, strings.Join(known, ", "))
}
