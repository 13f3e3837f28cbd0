package cli

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestShortValueKeepsRunesWhole: a long config value shown by results diff
// is cut on a character boundary (cutting at byte 77 split "é" in two).
func TestShortValueKeepsRunesWhole(t *testing.T) {
	long := strings.Repeat("é", 100)
	got := shortValue(long, 80)
	if !utf8.ValidString(got) {
		t.Fatalf("cut value is not valid UTF-8: %q", got)
	}
	if n := utf8.RuneCountInString(got); n != 80 || !strings.HasSuffix(got, "...") {
		t.Fatalf("cut value has %d runes (%q), want 80 ending in ...", n, got)
	}
	if short := strings.Repeat("é", 80); shortValue(short, 80) != short {
		t.Fatalf("a value of 80 runes was cut")
	}
}
