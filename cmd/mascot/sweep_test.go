package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"mascot.dev/mascot/runner"
)

// readmeTour returns the README's tour.cue.
func readmeTour(t *testing.T) string {
	t.Helper()
	blocks, err := docBlocks("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range blocks {
		if b.info == "cue file=tour.cue" {
			return b.body
		}
	}
	t.Fatal("README.md has no tour.cue block")
	return ""
}

var runIDs = regexp.MustCompile(`\d{8}-\d{6}-[0-9a-f]{8}`)

// TestBuiltinSweepRunsTwiceWithIdenticalSummaries is issue 21's first
// check: a sweep of three variants whose endpoints are all the built-in
// engine runs to completion from scratch (the variants share the engine's
// servers, three at a time), and again with everything cached, and both
// summaries say the same. Then `mascot run -m` and `mascot plan -m` over
// two of the variants list, and run, both.
func TestBuiltinSweepRunsTwiceWithIdenticalSummaries(t *testing.T) {
	tour := readmeTour(t)
	dir := t.TempDir()
	chdir(t, dir)
	// The README's tour, on one dialogue with a shorter pretraining (the
	// test's time goes to the tiny judge).
	spec := tour
	for old, cheaper := range map[string]string{"limit: 2,": "limit: 1,", "max_steps: 60,": "max_steps: 20,"} {
		if !strings.Contains(spec, old) {
			t.Fatalf("the README's tour no longer has %q", old)
		}
		spec = strings.Replace(spec, old, cheaper, 1)
	}
	spec += "\nsweep: {axes: \"stages.eval.turns\": [1, 2, 3], max_parallel: 3}\n"
	if err := os.WriteFile(filepath.Join(dir, "tour.cue"), []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	sweep := func() (*runner.SweepSummary, string) {
		var s runner.SweepSummary
		if err := json.Unmarshal([]byte(mascot(t, "sweep", "tour.cue", "--json")), &s); err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		runner.PrintSweep(&b, &s)
		_, table, _ := strings.Cut(b.String(), "\n") // the first line counts units
		return &s, runIDs.ReplaceAllString(table, "RUN")
	}
	first, table1 := sweep()
	if len(first.Children) != 3 || len(first.Failed()) != 0 {
		t.Fatalf("first sweep: %d variants, %d failed:\n%s", len(first.Children), len(first.Failed()), table1)
	}
	for _, c := range first.Children {
		if c.Summary == nil || c.Summary.Status != "done" || len(c.Values) == 0 {
			t.Fatalf("variant %s did not finish with values:\n%s", c.Variant.Label(), table1)
		}
	}
	if first.Ran == 0 {
		t.Fatal("the first sweep ran nothing")
	}
	second, table2 := sweep()
	if second.Ran != 0 || second.Cached != first.Ran+first.Cached {
		t.Errorf("second sweep ran %d and cached %d units; want 0 and %d", second.Ran, second.Cached, first.Ran+first.Cached)
	}
	if table1 != table2 {
		t.Errorf("the cached sweep's summary differs:\n%s\nvs\n%s", table1, table2)
	}
	for i := range first.Children {
		a, b := first.Children[i].Values, second.Children[i].Values
		ja, _ := json.Marshal(a)
		jb, _ := json.Marshal(b)
		if !bytes.Equal(ja, jb) {
			t.Errorf("variant %d values %s, then %s", i, ja, jb)
		}
	}

	// The README's multirun: two of the variants, from the command line.
	plan := mascot(t, "plan", "tour.cue", "-m", "stages.eval.turns=2,3")
	for _, want := range []string{"2 variants", "shared by every variant (run once):", "\npretrain ",
		"1   stages.eval.turns=2", "2   stages.eval.turns=3", "eval (0)"} {
		if !strings.Contains(plan, want) {
			t.Errorf("plan -m lacks %q:\n%s", want, plan)
		}
	}
	run := mascot(t, "run", "tour.cue", "-m", "stages.eval.turns=2,3")
	if !strings.Contains(run, ": 2 variants") || strings.Contains(run, "FAILED") {
		t.Fatalf("run -m:\n%s", run)
	}
	// The multirun is recorded as a sweep, like a file's: a parent whose
	// report plots its Overall against the axis.
	multi := runIDs.FindString(run)
	if page := mascot(t, "report", multi, "--format", "html"); !strings.Contains(page, `id="sweep-stages-eval-turns"`) {
		t.Errorf("the multirun's parent %s is not reported as a sweep:\n%s", multi, lastLines(page, 20))
	}
	var rows []string
	for _, l := range strings.Split(run, "\n") {
		if strings.HasPrefix(l, "stages.eval.turns=") {
			rows = append(rows, runIDs.ReplaceAllString(l, "RUN"))
		}
	}
	if len(rows) != 2 || !sweepHasRow(table1, rows[0]) || !sweepHasRow(table1, rows[1]) {
		t.Errorf("run -m rows %q are not the sweep's:\n%s", rows, table1)
	}

	// Telling the variants apart: the config field that differs, then the
	// stages it invalidates; a comparison of all three against the first.
	ids := []string{first.Children[0].Summary.RunID, first.Children[1].Summary.RunID, first.Children[2].Summary.RunID}
	diff := mascot(t, "results", "diff", ids[0], ids[1])
	for _, want := range []string{"1 fields differ", "  stages.eval.turns: 1 → 2\n", "pretrain  pretrain  reused",
		"eval      episodes  invalidated (its config changed)", "judge     judge     invalidated (an input changed"} {
		if !strings.Contains(diff, want) {
			t.Errorf("diff lacks %q:\n%s", want, diff)
		}
	}
	var cmps []json.RawMessage
	if err := json.Unmarshal([]byte(mascot(t, "results", "compare", ids[0], ids[1], ids[2], "--json")), &cmps); err != nil || len(cmps) != 2 {
		t.Errorf("compare of three runs: %d comparisons, %v", len(cmps), err)
	}
	// Plots: report --plot writes the criteria bars, the forest plot of the
	// second run against the first and the pretrain curves; the sweep's
	// page shows its Overall against the axis.
	plots := filepath.Join(dir, "plots")
	mascot(t, "report", ids[0], ids[1], "--plot", plots)
	for _, glob := range []string{"bars-*-agent.svg", "forest-*-agent.svg", "train-pretrain-*-loss.svg"} {
		if m, _ := filepath.Glob(filepath.Join(plots, glob)); len(m) == 0 {
			t.Errorf("report --plot wrote no %s", glob)
		}
	}
	tex := mascot(t, "report", ids[0], "--format", "latex")
	for _, want := range []string{`\begin{tabular}`, `\toprule`, `\midrule`, `\bottomrule`, `Overall`, `$\pm$`} {
		if !strings.Contains(tex, want) {
			t.Errorf("report --format latex lacks %q:\n%s", want, tex)
		}
	}
	if page := mascot(t, "report", first.ParentID, "--format", "html"); !strings.Contains(page, `id="sweep-stages-eval-turns"`) ||
		strings.Contains(page, "<script") {
		t.Errorf("the sweep's HTML report has no axis plot (or a script):\n%s", lastLines(page, 20))
	}
	// Removing the first sweep keeps every unit: the second sweep's
	// children use them all.
	rm := mascot(t, "results", "rm", first.ParentID, "--yes")
	if !strings.Contains(rm, "removed 4 runs, 0 units") {
		t.Errorf("rm of the first sweep:\n%s", rm)
	}
	if rep := mascot(t, "report", second.Children[2].Summary.RunID); !strings.Contains(rep, "Overall") {
		t.Errorf("the second sweep's report after removing the first:\n%s", rep)
	}
}

// sweepHasRow reports whether the sweep summary has a row of the same
// variant showing the same values as row. A column's decimals follow the
// report's rule over the column's values, so a two-variant table can show
// a value to one more decimal than the three-variant one (0.972 beside
// 0.97 where another variant's 1.00 is in the column): each pair of
// numbers must agree at the fewer decimals of the two.
func sweepHasRow(table, row string) bool {
	want := strings.Fields(row)
	for _, l := range strings.Split(table, "\n") {
		got := strings.Fields(runIDs.ReplaceAllString(l, "RUN"))
		if len(got) != len(want) || len(got) == 0 || got[0] != want[0] {
			continue
		}
		same := true
		for i := range got {
			same = same && sameShown(got[i], want[i])
		}
		if same {
			return true
		}
	}
	return false
}

// sameShown: equal strings, or numbers equal at the fewer decimals shown.
func sameShown(a, b string) bool {
	if a == b {
		return true
	}
	x, errA := strconv.ParseFloat(a, 64)
	y, errB := strconv.ParseFloat(b, 64)
	if errA != nil || errB != nil {
		return false
	}
	decimals := func(s string) int {
		if _, frac, ok := strings.Cut(s, "."); ok {
			return len(frac)
		}
		return 0
	}
	d := min(decimals(a), decimals(b))
	return strconv.FormatFloat(x, 'f', d, 64) == strconv.FormatFloat(y, 'f', d, 64)
}
