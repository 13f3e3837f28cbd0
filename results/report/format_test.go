package report

import (
	"math"
	"testing"
)

// TestNumberRule: the decimals come from the magnitude of the numbers
// shown together, three significant digits, one to six decimals; the
// issue's 0–1 metric keeps its differences.
func TestNumberRule(t *testing.T) {
	nan := math.NaN()
	for _, c := range []struct {
		s    Stat
		want string
	}{
		{Stat{N: 40, Mean: 0.6237, Std: 0.0412, CILow: 0.5986, CIHigh: 0.6489}, "0.624 ± 0.041 [0.599, 0.649]"},
		{Stat{N: 2, Mean: 56.25, Std: 8.84, CILow: 50, CIHigh: 62.5}, "56.2 ± 8.8 [50.0, 62.5]"},
		{Stat{N: 2, Mean: 100, Std: 0, CILow: 100, CIHigh: 100}, "100.0 ± 0.0 [100.0, 100.0]"},
		{Stat{N: 9, Mean: 4.25, Std: 0.5, CILow: 3.9, CIHigh: 4.6}, "4.25 ± 0.50 [3.90, 4.60]"},
		{Stat{N: 9, Mean: 0.01234, Std: 0.002, CILow: 0.011, CIHigh: 0.0139}, "0.0123 ± 0.0020 [0.0110, 0.0139]"},
		{Stat{N: 3, Mean: 0.5, Std: 0.1, CILow: nan, CIHigh: nan}, "0.500 ± 0.100"},
		{Stat{N: 3, Mean: 0, Std: 0, CILow: 0, CIHigh: 0}, "0.0 ± 0.0 [0.0, 0.0]"},
		{Stat{}, "–"},
	} {
		if got := FormatStat(c.s); got != c.want {
			t.Errorf("FormatStat(%+v) = %q, want %q", c.s, got, c.want)
		}
	}
	if got := FormatDiff(PairedStat{N: 5, MeanDiff: -0.0312, CILow: -0.05, CIHigh: -0.012}); got != "−0.0312 [-0.0500, -0.0120]" {
		t.Errorf("FormatDiff = %q", got)
	}
	if got := FormatRate(0.625, 0.401, 0.803); got != "62.5% [40.1, 80.3]" {
		t.Errorf("FormatRate = %q", got)
	}
	if got := Num(-0.00001, 2); got != "0.00" {
		t.Errorf("Num(-0.00001, 2) = %q, want 0.00 (no minus zero)", got)
	}
	if d := Decimals(1e-9); d != maxDecimals {
		t.Errorf("Decimals(1e-9) = %d, want the cap %d", d, maxDecimals)
	}
}
