package dialogue

import (
	"fmt"
	"strings"
	"testing"
)

// TestRenderHistoryIsFmts checks that the history (and a meeting's
// transcript) is written as fmt's "%s: %s\n" per line wrote it, before it
// was written without fmt.
func TestRenderHistoryIsFmts(t *testing.T) {
	texts := []string{"", "plain", "100% sure %s %d %!", "  padded  ", "line\nbreak", "ünïcode 🙂", "bad\xffbyte", "\t"}
	for n := 0; n <= len(texts); n++ {
		var h []line
		var b strings.Builder
		for i := 0; i < n; i++ {
			l := line{texts[(i+3)%len(texts)], texts[i]}
			h = append(h, l)
			fmt.Fprintf(&b, "%s: %s\n", l.Name, l.Text)
		}
		if got, want := renderHistory(h), strings.TrimSpace(b.String()); got != want {
			t.Fatalf("renderHistory of %d lines:\n got %q\nwant %q", n, got, want)
		}
	}
}
