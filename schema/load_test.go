package schema_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"mascot.dev/mascot/runner"
	_ "mascot.dev/mascot/runner/stages/all" // every built-in stage kind
	"mascot.dev/mascot/schema"
)

func TestEmbeddedNamesIncludePaperConfigs(t *testing.T) {
	names, err := schema.EmbeddedNames()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"demo", "paper/qmsum", "paper/empathetic", "paper/esconv", "paper/baselines/zero-shot"}
	for _, w := range want {
		found := false
		for _, n := range names {
			found = found || n == w
		}
		if !found {
			t.Errorf("schema.EmbeddedNames() = %v, missing %q", names, w)
		}
	}
}

func TestLoadPaperQMSumWithTags(t *testing.T) {
	l, err := schema.Load("paper/qmsum", runner.Default.Kinds(), schema.Options{Tags: []string{"vllm=http://127.0.0.1:8000/v1", "judge=http://127.0.0.1:8001/v1"}})
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	e := l.Experiment
	if got := e.Endpoints["director"].URLs; len(got) != 1 || got[0] != "http://127.0.0.1:8000/v1" {
		t.Errorf("director urls = %v", got)
	}
	if got := e.Endpoints["judge"].URLs[0]; got != "http://127.0.0.1:8001/v1" {
		t.Errorf("judge url = %q", got)
	}
	if len(e.Stages) < 10 {
		t.Errorf("only %d stages", len(e.Stages))
	}
}

func TestLoadReportsMissingTag(t *testing.T) {
	_, err := schema.Load("paper/qmsum", runner.Default.Kinds(), schema.Options{Tags: []string{"judge=http://x/v1"}})
	if err == nil {
		t.Fatal("no error")
	}
	if !strings.Contains(err.Error(), `tag "vllm" is not set: pass -t vllm=VALUE`) {
		t.Errorf("error = %v", err)
	}
}

// TestLoadOpenTags: with OpenTags a config whose required tags are not
// given loads, each open tag reading as its OpenValue and named in Open;
// a given tag keeps its value, a tag with a default is listed, not open.
func TestLoadOpenTags(t *testing.T) {
	l, err := schema.Load("paper/qmsum", runner.Default.Kinds(), schema.Options{Tags: []string{"judge=http://x/v1"}, OpenTags: true})
	if err != nil {
		t.Fatalf("Load with open tags: %v", err)
	}
	if !slices.Equal(l.Open, []string{"vllm"}) {
		t.Errorf("Open = %v, want [vllm]", l.Open)
	}
	if got := l.Experiment.Endpoints["speaker"].URLs; len(got) != 1 || got[0] != schema.OpenValue("vllm") {
		t.Errorf("speaker urls = %v, want [%s]", got, schema.OpenValue("vllm"))
	}
	if got := l.Experiment.Endpoints["judge"].URLs[0]; got != "http://x/v1" {
		t.Errorf("judge url = %q, want the given one", got)
	}
	var names []string
	for _, tg := range l.Tags {
		names = append(names, tg.Name)
		if tg.Name == "data" && (tg.Required || tg.Default != `"data/qmsum"`) {
			t.Errorf("data tag = %+v, want optional with its default", tg)
		}
	}
	if !slices.Equal(names, []string{"vllm", "judge", "data"}) {
		t.Errorf("Tags = %v, want required first: [vllm judge data]", names)
	}
	if _, err := schema.Load("paper/qmsum", runner.Default.Kinds(), schema.Options{}); err == nil {
		t.Error("without OpenTags a missing required tag must stay an error")
	}
}

func TestUserFileImportsEmbedded(t *testing.T) {
	dir := t.TempDir()
	src := `package mine

import "mascot.dev/experiments/paper/qmsum"

qmsum
endpoints: director: urls: ["http://a/v1"]
endpoints: speaker: urls: ["http://a/v1"]
endpoints: user: urls: ["http://a/v1"]
endpoints: judge: urls: ["http://b/v1"]
stages: candidates: k: 4
`
	if err := os.WriteFile(filepath.Join(dir, "mine.cue"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := schema.Load(filepath.Join(dir, "mine.cue"), runner.Default.Kinds(), schema.Options{Sets: []string{"stages.speaker_grpo.lr=2e-6"}})
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	var c struct {
		K int `json:"k"`
	}
	if err := l.Experiment.Stages["candidates"].Decode(&c); err != nil || c.K != 4 {
		t.Fatalf("k = %d, %v", c.K, err)
	}
	var g struct {
		LR float64 `json:"lr"`
	}
	if err := l.Experiment.Stages["speaker_grpo"].Decode(&g); err != nil || g.LR != 2e-6 {
		t.Fatalf("lr = %g, %v", g.LR, err)
	}
}
