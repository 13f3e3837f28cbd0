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
	if !strings.Contains(first, "stages.a.k=1, stages.b.t=0.1") || !strings.Contains(first, "61.2           40.5          0.300              -") {
		t.Errorf("table:\n%s", first)
	}
	s.Show = nil
	all := strings.Fields(strings.SplitN(render(), "\n", 3)[1])
	if strings.Join(all[2:], " ") != "agent overall collective overall empathetic_support fidelity self-bleu" {
		t.Errorf("default columns %q", all[2:])
	}
}
