package schema_test

import (
	"slices"
	"testing"

	"mascot.dev/mascot/schema"
)

// TestEmbeddedExperimentsAreDescribedWithoutLoading: list-level facts about
// an embedded experiment come from its source alone (paper configs need
// tags to evaluate): its description, its tags (required ones first), its
// import path; libraries are not experiments.
func TestEmbeddedExperimentsAreDescribedWithoutLoading(t *testing.T) {
	if d := schema.Describe("demo"); d != "Offline demo: whole pipeline on a tiny model pretrained here, built-in engine, no GPU or network" {
		t.Errorf("Describe(demo) = %q", d)
	}
	if d := schema.Describe("no/such"); d != "" {
		t.Errorf("Describe of an unknown name = %q", d)
	}
	tags, err := schema.EmbeddedTags("paper/qmsum")
	if err != nil {
		t.Fatal(err)
	}
	var required []string
	seenOptional := false
	for _, tg := range tags {
		if tg.Required {
			required = append(required, tg.Name)
			if seenOptional {
				t.Errorf("required tag %s listed after an optional one: %+v", tg.Name, tags)
			}
		} else {
			seenOptional = true
		}
	}
	slices.Sort(required)
	if !slices.Equal(required, []string{"judge", "vllm"}) {
		t.Errorf("paper/qmsum requires %v, want judge and vllm (all: %+v)", required, tags)
	}
	if tags, err := schema.EmbeddedTags("demo"); err != nil || len(tags) != 0 {
		t.Errorf("demo declares tags %+v (%v)", tags, err)
	}
	for name, want := range map[string]bool{"demo": true, "paper/qmsum": true, "personas": false, "paper/base": false, "paper": false} {
		if got := schema.IsEmbedded(name); got != want {
			t.Errorf("IsEmbedded(%q) = %v", name, got)
		}
	}
	if p := schema.ImportPath("paper/qmsum"); p != "mascot.dev/experiments/paper/qmsum" {
		t.Errorf("ImportPath(paper/qmsum) = %q", p)
	}
}

// TestBuiltinPluginsComeFromTheLanguage: the plugin names a spec may use
// without a command are read from #BuiltinJudge and #BuiltinMetric.
func TestBuiltinPluginsComeFromTheLanguage(t *testing.T) {
	judges, metrics, err := schema.BuiltinPlugins()
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(judges)
	if !slices.Equal(judges, []string{"markers", "rubric"}) {
		t.Errorf("built-in judges %v", judges)
	}
	slices.Sort(metrics)
	if !slices.Equal(metrics, []string{"distinct-n", "nli-contradiction", "self-bleu"}) {
		t.Errorf("built-in metrics %v", metrics)
	}
}
