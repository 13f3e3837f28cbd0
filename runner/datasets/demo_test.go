package datasets

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mascot.dev/mascot/internal/labels"
)

// demoData is the offline demo's text, written for mascot (not copied
// from any dataset), in the real datasets' formats.
const demoData = "../../experiments/demo/data"

func TestDemoDataLoads(t *testing.T) {
	isolate(t)
	es, err := Load(Spec{Name: ESConv, Path: demoData})
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != 40 {
		t.Errorf("demo esconv: %d dialogues, want 40", len(es))
	}
	emotions := map[string]bool{}
	for _, s := range es {
		emotions[s.Emotion] = true
		if s.Meta["speakers"] != "seeker/supporter" || s.Situation == "" || s.Problem == "" || s.Valence != labels.Negative || len(s.Context) < 4 || s.Meta["strategies"] == "" {
			t.Errorf("demo dialogue %s: %+v", s.ID, s)
		}
	}
	if len(emotions) < 8 {
		t.Errorf("demo esconv covers %d emotions, want at least 8", len(emotions))
	}
	qm, err := Load(Spec{Name: QMSum, Path: filepath.Join(demoData, "qmsum.jsonl")})
	if err != nil {
		t.Fatal(err)
	}
	g, sp := countQueries(qm)
	if g != 6 || sp != 14 {
		t.Errorf("demo qmsum: %d general + %d specific queries, want 6 + 14", g, sp)
	}
	dom := meetingsByDomain(qm)
	if dom[labels.DomainProduct] != 2 || dom[labels.DomainAcademic] != 2 || dom[labels.DomainCommittee] != 2 {
		t.Errorf("demo meetings by domain = %v, want 2/2/2", dom)
	}
	st, err := os.Stat(filepath.Join(demoData, "pretrain.txt"))
	if err != nil {
		t.Fatal(err)
	}
	lines := demoLines(t, filepath.Join(demoData, "pretrain.txt"))
	if st.Size() < 20<<10 || st.Size() > 40<<10 || len(lines) < 300 {
		t.Errorf("pretrain.txt: %d bytes, %d lines; want 20-40 KB and at least 300 lines", st.Size(), len(lines))
	}
}

// TestDemoDataIsNotDatasetText checks that no demo sentence of 30 or more
// characters appears verbatim in the real QMSum or ESConv text.
func TestDemoDataIsNotDatasetText(t *testing.T) {
	isolate(t)
	shared := sharedDatasets(t)
	var corpus strings.Builder
	for _, f := range []string{filepath.Join(shared, "qmsum", "test.jsonl"), filepath.Join(shared, "esconv", "FailedESConv.json")} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		corpus.Write(b)
	}
	real := strings.ToLower(corpus.String())
	checked := 0
	for _, l := range demoLines(t, filepath.Join(demoData, "pretrain.txt")) {
		if _, after, ok := strings.Cut(l, ": "); ok && len(after) >= 30 {
			l = after
		}
		if len(l) < 30 {
			continue
		}
		checked++
		if strings.Contains(real, strings.ToLower(l)) {
			t.Errorf("demo line found in a real dataset: %q", l)
		}
	}
	if checked < 200 {
		t.Errorf("only %d lines checked", checked)
	}
}

func demoLines(t *testing.T, p string) []string {
	t.Helper()
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" {
			out = append(out, l)
		}
	}
	return out
}
