package benchsuite

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Row is one line of the suite's table: a figure measured once per round,
// as a ratio to its anchor (or, where the goal is absolute, as the value
// itself), its spread over the rounds, what one round of it cost, and the
// goal it is held to.
type Row struct {
	Figure string
	Anchor string    // what the ratio is to ("" for an absolute figure)
	Values []float64 // one per round
	Format string    // of a value, e.g. "%.2f"
	Cost   string    // wall and CPU seconds of the measured side, per round (median)
	Goal   string    // e.g. "≥ 0.90"
	// Met says whether the median meets the goal; nil when no goal.
	Met func(median float64) bool
	// Note is printed after the row's line (the extrapolation of a
	// small-scale figure, for example).
	Note string
}

// Spread returns the minimum, median and maximum of v.
func Spread(v []float64) (lo, med, hi float64) {
	if len(v) == 0 {
		return 0, 0, 0
	}
	s := slices.Sorted(slices.Values(v))
	return s[0], s[len(s)/2], s[len(s)-1]
}

// Table is the suite's result.
type Table struct {
	Commit     string
	Started    time.Time
	LoadBefore string
	LoadAfter  string
	Rounds     int
	Rows       []Row
	// Details are the phases' own tables (the engine suite's), printed
	// after the main one.
	Details []string
}

// atLeast and atMost make a Row's Met.
func atLeast(x float64) func(float64) bool { return func(v float64) bool { return v >= x } }
func atMost(x float64) func(float64) bool  { return func(v float64) bool { return v <= x } }

// Print writes the table.
func (t *Table) Print(w io.Writer) {
	fmt.Fprintf(w, "\nmascot benchmark suite, %s, commit %s, GOMAXPROCS %d on %d CPUs, %d rounds\n",
		t.Started.UTC().Format("2006-01-02 15:04 MST"), t.Commit, runtime.GOMAXPROCS(0), runtime.NumCPU(), t.Rounds)
	fmt.Fprintf(w, "load average %s before, %s after\n", t.LoadBefore, t.LoadAfter)
	fmt.Fprintf(w, "%-52s %-36s %-22s %-22s %-14s %s\n", "figure", "÷ anchor (same round)", "min / median / max",
		"per round: wall s, CPU s", "goal", "met")
	for _, r := range t.Rows {
		lo, med, hi := Spread(r.Values)
		f := r.Format
		if f == "" {
			f = "%.2f"
		}
		spread := fmt.Sprintf(f+" / %s / "+f, lo, medianText(f, med, r.Met), hi)
		anchor := r.Anchor
		if anchor == "" {
			anchor = "(absolute)"
		}
		met := ""
		if r.Met != nil {
			met = map[bool]string{true: "yes", false: "NO"}[r.Met(med)]
		}
		fmt.Fprintf(w, "%-52s %-36s %-22s %-22s %-14s %s\n", r.Figure, anchor, spread, r.Cost, r.Goal, met)
		if r.Note != "" {
			fmt.Fprintf(w, "%-52s %s\n", "", r.Note)
		}
	}
	for _, d := range t.Details {
		fmt.Fprint(w, d)
	}
}

// medianText formats a row's median with f ("%.Nf"), with as many more
// digits as it takes for the text to meet the goal exactly when the
// median does: 0.8996 against "≥ 0.90" prints 0.8996, not 0.90 beside
// "NO".
func medianText(f string, med float64, met func(float64) bool) string {
	text := fmt.Sprintf(f, med)
	var digits int
	if met == nil || !strings.HasSuffix(f, "f") {
		return text
	}
	if _, err := fmt.Sscanf(f, "%%.%df", &digits); err != nil {
		return text
	}
	for d := digits + 1; d <= digits+6; d++ {
		if v, err := strconv.ParseFloat(text, 64); err == nil && met(v) == met(med) {
			break
		}
		text = strconv.FormatFloat(med, 'f', d, 64)
	}
	return text
}

// cpuSeconds is this process's user plus system CPU time.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// loadAvg is the 1-, 5- and 15-minute load average ("?" where unknown).
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Join(strings.Fields(string(b))[:3], " ")
}

// cost is one measurement: wall and CPU seconds.
type cost struct{ wall, cpu float64 }

// measure runs f and returns its wall and CPU seconds.
func measure(f func() error) (cost, error) {
	c0, t0 := cpuSeconds(), time.Now()
	err := f()
	return cost{time.Since(t0).Seconds(), cpuSeconds() - c0}, err
}

// costs formats the median wall and CPU seconds of cs.
func costs(cs []cost) string {
	var w, c []float64
	for _, x := range cs {
		w = append(w, x.wall)
		c = append(c, x.cpu)
	}
	_, mw, _ := Spread(w)
	_, mc, _ := Spread(c)
	return fmt.Sprintf("%.2f, %.2f", mw, mc)
}
