package qwen3

import (
	"math"
	"testing"
)

// ExpNeg agrees with math.Exp to 1e-8 relative error on x ≤ 0 and is 0
// where e^x underflows.
func TestExpNegMatchesExp(t *testing.T) {
	for x := 0.0; x > -720; x -= 0.0137 {
		want := math.Exp(x)
		got := ExpNeg(x)
		if x < -708 {
			if got != 0 {
				t.Fatalf("ExpNeg(%g) = %g, want 0", x, got)
			}
			continue
		}
		if math.Abs(got-want) > 1e-8*want {
			t.Fatalf("ExpNeg(%g) = %.17g, math.Exp %.17g", x, got, want)
		}
	}
	if ExpNeg(0) != 1 {
		t.Errorf("ExpNeg(0) = %g", ExpNeg(0))
	}
}
