package report

import (
	"math"
	"strconv"
)

// How many decimals a number is printed with is one rule, here, used by
// the terminal and markdown tables, the comparison grid, the sweep table
// and the web viewer: three significant digits of the largest magnitude
// among the numbers shown together (a cell's mean and interval), at least
// one decimal and at most six. Scores on 0–100 keep one decimal (66.3,
// 100.0); a 0–1 metric gets three (0.624 ± 0.026 [0.599, 0.649]) where one
// decimal would print 0.6 ± 0.0 [0.6, 0.6] and hide every difference a
// paper reports. CSV and JSON carry full precision.
const (
	minDecimals = 1
	maxDecimals = 6
	sigDigits   = 3
)

// Decimals is the number of decimals for numbers shown together: chosen
// from the largest finite magnitude among xs (NaN and ±Inf ignored).
func Decimals(xs ...float64) int {
	m := 0.0
	for _, x := range xs {
		if !math.IsNaN(x) && !math.IsInf(x, 0) {
			m = max(m, math.Abs(x))
		}
	}
	if m == 0 {
		return minDecimals
	}
	d := sigDigits - 1 - int(math.Floor(math.Log10(m)))
	return min(max(d, minDecimals), maxDecimals)
}

// Num formats x with d decimals; NaN and ±Inf are "–".
func Num(x float64, d int) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return "–"
	}
	s := strconv.FormatFloat(x, 'f', d, 64)
	if s[0] == '-' && isZero(s[1:]) {
		return s[1:] // no "-0.0"
	}
	return s
}

// Number formats one number on its own, by the rule.
func Number(x float64) string { return Num(x, Decimals(x)) }

func isZero(s string) bool {
	for _, c := range s {
		if c != '0' && c != '.' {
			return false
		}
	}
	return true
}

// statDecimals is the rule for a cell: its mean and interval bounds.
func statDecimals(s Stat) int { return Decimals(s.Mean, s.CILow, s.CIHigh) }

// FormatMeanStd formats a cell's "mean ± std" ("–" when it has no value).
func FormatMeanStd(s Stat) string {
	if s.N == 0 {
		return "–"
	}
	d := statDecimals(s)
	return Num(s.Mean, d) + " ± " + Num(s.Std, d)
}

// FormatInterval formats a cell's "[lo, hi]", or "" when no interval was computed.
func FormatInterval(s Stat) string {
	if s.N == 0 || math.IsNaN(s.CILow) {
		return ""
	}
	d := statDecimals(s)
	return "[" + Num(s.CILow, d) + ", " + Num(s.CIHigh, d) + "]"
}

// FormatStat is a cell as tables print it: "mean ± std [lo, hi]".
func FormatStat(s Stat) string {
	out := FormatMeanStd(s)
	if ci := FormatInterval(s); ci != "" {
		out += " " + ci
	}
	return out
}

// FormatRate is a rate in [0, 1] with its interval, as a percentage:
// "62.5% [40.1, 80.3]".
func FormatRate(rate, lo, hi float64) string {
	d := Decimals(100*rate, 100*lo, 100*hi)
	return Num(100*rate, d) + "% [" + Num(100*lo, d) + ", " + Num(100*hi, d) + "]"
}

// diffDecimals is the rule for a paired cell: its mean difference and
// interval bounds.
func diffDecimals(p PairedStat) int { return Decimals(p.MeanDiff, p.CILow, p.CIHigh) }

// FormatDiff is a paired cell's signed mean difference with its interval,
// "+6.2 [-12.5, 25.0]" (no interval when none was computed).
func FormatDiff(p PairedStat) string {
	d := diffDecimals(p)
	s := sign(p.MeanDiff) + Num(math.Abs(p.MeanDiff), d)
	if !math.IsNaN(p.CILow) {
		s += " [" + Num(p.CILow, d) + ", " + Num(p.CIHigh, d) + "]"
	}
	return s
}
