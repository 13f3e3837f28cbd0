package runner

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// TestPrintSweepIsAFunctionOfTheSummary: rendering one summary many times
// gives one text, and a shown name that several values end in ("overall")
// prints each of them under its full name instead of one picked by map
// order.
func TestPrintSweepIsAFunctionOfTheSummary(t *testing.T) {
	values := map[string]float64{"agent overall": 61.25, "collective overall": 40.5, "self-bleu": 0.3,
		"empathetic_support": 70, "fidelity": 45}
	s := &SweepSummary{ParentID: "p", Show: []string{"overall", "Self-BLEU", "missing"}}
	for _, k := range []string{"1", "2"} {
		s.Children = append(s.Children, SweepChild{Variant: Variant{Axes: map[string]json.RawMessage{
			"stages.a.k": json.RawMessage(k), "stages.b.t": json.RawMessage("0." + k)}},
			Summary: &Summary{RunID: "r" + k}, Values: values})
	}
	render := func() string {
		var b bytes.Buffer
		PrintSweep(&b, s)
		return b.String()
	}
	first := render()
	for range 50 {
		if got := render(); got != first {
			t.Fatalf("renders differ:\n%s\n%s", first, got)
		}
	}
	header := strings.Fields(strings.SplitN(first, "\n", 3)[1])
	want := []string{"VARIANT", "RUN", "agent", "overall", "collective", "overall", "self-bleu", "missing"}
	if strings.Join(header, " ") != strings.Join(want, " ") {
		t.Errorf("header %q, want %q", header, want)
	}
	if !strings.Contains(first, "stages.a.k=1, stages.b.t=0.1  r1") || !strings.Contains(first, "61.2               40.5     0.300        -") {
		t.Errorf("table:\n%s", first)
	}
	// Every value ends where its column's header ends.
	lines := strings.Split(first, "\n")
	for _, col := range []string{"overall", "self-bleu", "missing"} {
		end := strings.LastIndex(lines[1], col) + len(col)
		if c := lines[2][end-1]; c == ' ' {
			t.Errorf("column %s: value does not end under its header:\n%s\n%s", col, lines[1], lines[2])
		}
	}
	s.Show = nil
	all := strings.Fields(strings.SplitN(render(), "\n", 3)[1])
	if strings.Join(all[2:], " ") != "agent overall collective overall empathetic_support fidelity self-bleu" {
		t.Errorf("default columns %q", all[2:])
	}
}

// TestVariantColumnFitsItsLabels: a label as long as the model-size
// study's (~86 characters) keeps its row aligned with the header, and a
// failed variant is listed with why it failed: a run's error says on its
// first line only that a stage failed, and its stages' reasons below.
func TestVariantColumnFitsItsLabels(t *testing.T) {
	long := Variant{Axes: map[string]json.RawMessage{
		"endpoints.director.model": json.RawMessage(`"Qwen/Qwen3-0.6B"`),
		"endpoints.speaker.model":  json.RawMessage(`"Qwen/Qwen3-1.7B"`)}}
	s := &SweepSummary{ParentID: "p", Children: []SweepChild{
		{Variant: long, Summary: &Summary{RunID: "r1"}, Values: map[string]float64{"overall": 1}},
		{Variant: Variant{Axes: map[string]json.RawMessage{"x": json.RawMessage("1")}}, Summary: &Summary{RunID: "r2"},
			Error: "stage failed:\n  eval: boom\n    at turn 2\n  not run, because a stage they read from failed (1): judge\n(rerun the same command to retry what failed)"}}}
	var b bytes.Buffer
	PrintSweep(&b, s)
	lines := strings.Split(b.String(), "\n")
	col := strings.Index(lines[1], "RUN")
	if col <= len(long.Label()) {
		t.Fatalf("RUN column at %d, inside the %d-character label:\n%s", col, len(long.Label()), b.String())
	}
	for _, l := range lines[2:4] {
		if !strings.HasPrefix(l[col:], "r") {
			t.Errorf("row %q: run id not under RUN (column %d)", l, col)
		}
	}
	if !strings.Contains(b.String(), "1 of 2 variants failed") || !strings.Contains(b.String(), "  x=1: stage failed: eval: boom; at turn 2; not run, because a stage they read from failed (1): judge\n") {
		t.Errorf("the failed variant and its error are not listed:\n%s", b.String())
	}
}
