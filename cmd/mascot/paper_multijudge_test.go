package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"mascot.dev/mascot/internal/fakevllm"
)

// TestMultiJudgePaperConfigReportsAgreement runs a paper config (the QMSum
// zero-shot baseline, by import) with two judges added to its rubric
// judge, each of the three on a fake endpoint of its own model (so their
// scores differ), on the shipped QMSum data, and reads `mascot report
// --format json`: per judged level, a column per judge, Krippendorff's α
// and a Spearman ρ for each of the three pairs of judges on every
// criterion and on Overall, and a main-table Overall that is the mean of
// the judges' columns (every judge scored every item: the paper's average
// of normalised scores). The markdown report shows the same tables.
func TestMultiJudgePaperConfigReportsAgreement(t *testing.T) {
	policy := fakevllm.Start(t, fakevllm.Options{})
	judges := map[string]*fakevllm.Server{
		"judge": fakevllm.Start(t, fakevllm.Options{Model: "google/gemma-3-27b-it"}),
		"gpt4o": fakevllm.Start(t, fakevllm.Options{Model: "gpt-4o"}),
		"phi4":  fakevllm.Start(t, fakevllm.Options{Model: "microsoft/phi-4"}),
	}
	dir := t.TempDir()
	spec := filepath.Join(dir, "judges.cue")
	src := `package mine

import "mascot.dev/experiments/paper/qmsum/baselines/zero-shot:zeroshot"

zeroshot
datasets: [_]: path: "` + sharedDataset(t, "qmsum") + `"
endpoints: director: urls: ["` + policy.URL() + `"]
endpoints: speaker: urls: ["` + policy.URL() + `"]
endpoints: user: urls: ["` + policy.URL() + `"]
endpoints: judge: urls: ["` + judges["judge"].URL() + `"]
endpoints: gpt4o: {model: "gpt-4o", urls: ["` + judges["gpt4o"].URL() + `"], sampling: temperature: 0}
endpoints: phi4: {model: "microsoft/phi-4", urls: ["` + judges["phi4"].URL() + `"], sampling: temperature: 0}
judges: gpt4o: {plugin: "rubric", endpoint: "gpt4o", rubric_version: "paper_v1"}
judges: phi4: {plugin: "rubric", endpoint: "phi4", rubric_version: "paper_v1"}
`
	if err := os.WriteFile(spec, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "m.db")
	mascot(t, "run", spec, "--db", db, "--runs-dir", filepath.Join(dir, "runs"),
		"--set", "datasets.test.limit=4", "--set", "stages.eval.turns=2")

	var rep struct {
		Tables []struct {
			Level    string   `json:"level"`
			Criteria []string `json:"criteria"`
			Rows     []struct {
				System string `json:"system"`
				Split  string `json:"split"`
				N      int    `json:"n"`
				Cells  []struct {
					Mean float64 `json:"mean"`
				} `json:"cells"`
			} `json:"rows"`
		} `json:"tables"`
		Judges []struct {
			Level  string   `json:"level"`
			Judges []string `json:"judges"`
			Rows   []struct {
				System string `json:"system"`
				Split  string `json:"split"`
				Cells  []struct {
					N    int     `json:"n"`
					Mean float64 `json:"mean"`
				} `json:"cells"`
			} `json:"rows"`
			Agreement []struct {
				Criterion string   `json:"criterion"`
				Items     int      `json:"items"`
				Values    int      `json:"values"`
				Alpha     *float64 `json:"alpha_interval"`
				Pairs     []struct {
					A   string   `json:"a"`
					B   string   `json:"b"`
					N   int      `json:"n"`
					Rho *float64 `json:"spearman_rho"`
				} `json:"pairs"`
			} `json:"agreement"`
		} `json:"judges"`
	}
	out := mascot(t, "report", "latest", "--db", db, "--format", "json")
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("report JSON: %v\n%s", err, out)
	}
	want := []string{"gpt4o", "phi4", "rubric"}
	levels := map[string]bool{}
	for _, jt := range rep.Judges {
		levels[jt.Level] = true
		if !slices.Equal(jt.Judges, want) {
			t.Errorf("%s: judge columns %v, want %v", jt.Level, jt.Judges, want)
		}
		if len(jt.Agreement) < 2 || jt.Agreement[len(jt.Agreement)-1].Criterion != "Overall" {
			t.Errorf("%s: agreement %+v, want every criterion then Overall", jt.Level, jt.Agreement)
		}
		for _, a := range jt.Agreement {
			if a.Items == 0 || a.Values != 3*a.Items || len(a.Pairs) != 3 {
				t.Errorf("%s %s: %d items, %d values, %d pairs; want 3 values per item and 3 pairs", jt.Level, a.Criterion, a.Items, a.Values, len(a.Pairs))
			}
			for _, p := range a.Pairs {
				if p.N != a.Items {
					t.Errorf("%s %s: pair %s~%s over %d items of %d", jt.Level, a.Criterion, p.A, p.B, p.N, a.Items)
				}
			}
			if a.Criterion == "Overall" && (a.Alpha == nil || *a.Alpha > 1 || a.Pairs[0].Rho == nil) {
				t.Errorf("%s Overall: alpha %v, rho %v; want both defined (the judges' Overall varies)", jt.Level, a.Alpha, a.Pairs[0].Rho)
			}
		}
		// The level's main table averages the judges: its Overall is the
		// mean of the judges' Overall columns, row by row.
		compared := 0
		for _, tb := range rep.Tables {
			if tb.Level != jt.Level {
				continue
			}
			overall := slices.Index(tb.Criteria, "Overall")
			for _, row := range tb.Rows {
				for _, jr := range jt.Rows {
					if jr.System != row.System || jr.Split != row.Split {
						continue
					}
					compared++
					var sum float64
					for _, c := range jr.Cells {
						sum += c.Mean
					}
					if got, mean := row.Cells[overall].Mean, sum/float64(len(jr.Cells)); math.Abs(got-mean) > 1e-9 {
						t.Errorf("%s %s/%s: Overall %v, the judges' columns average %v", jt.Level, row.System, row.Split, got, mean)
					}
				}
			}
		}
		if compared == 0 {
			t.Errorf("%s: no main-table row matches a judge-table row", jt.Level)
		}
	}
	if !levels["agent"] || !levels["collective"] {
		t.Errorf("judge tables for levels %v, want agent and collective", levels)
	}
	md := mascot(t, "report", "latest", "--db", db, "--format", "markdown")
	for _, s := range []string{"Per-agent Overall by judge", "Collective Overall by judge", "Inter-judge agreement", "Krippendorff", "ρ gpt4o ~ phi4"} {
		if !strings.Contains(md, s) {
			t.Errorf("markdown report lacks %q", s)
		}
	}
}
