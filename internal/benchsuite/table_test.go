package benchsuite

import (
	"strings"
	"testing"
)

// TestMedianShowsWhyItMisses: a median that rounds to its goal's bound
// is printed with the digits that show which side of it it lies on; one
// that rounds to the same verdict keeps the row's format.
func TestMedianShowsWhyItMisses(t *testing.T) {
	for _, c := range []struct {
		f    string
		med  float64
		met  func(float64) bool
		want string
	}{
		{"%.2f", 0.8996, atLeast(0.90), "0.8996"},
		{"%.2f", 0.8951, atLeast(0.90), "0.895"},
		{"%.2f", 0.9004, atLeast(0.90), "0.90"},
		{"%.2f", 2.004, atMost(2), "2.004"},
		{"%.2f", 1.996, atMost(2), "2.00"}, // reads as met, and is
		{"%.2f", 1.83, atMost(2), "1.83"},
		{"%.1f", 1.54, atMost(1.5), "1.54"},
		{"%.2f", 0.8996, nil, "0.90"},
	} {
		if got := medianText(c.f, c.med, c.met); got != c.want {
			t.Errorf("medianText(%q, %v) = %q, want %q", c.f, c.med, got, c.want)
		}
	}
	var b strings.Builder
	(&Table{Rows: []Row{{Figure: "rate", Values: []float64{0.87, 0.8996, 0.91}, Goal: "≥ 0.90", Met: atLeast(0.90)}}}).Print(&b)
	if !strings.Contains(b.String(), "0.87 / 0.8996 / 0.91") || !strings.Contains(b.String(), "NO") {
		t.Fatalf("the table hides why the row misses:\n%s", b.String())
	}
}
