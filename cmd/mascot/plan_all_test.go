package main

import (
	"encoding/json"
	"io/fs"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"mascot.dev/mascot/experiments"
	"mascot.dev/mascot/schema"
)

// tagRE finds the tags a CUE file declares.
var tagRE = regexp.MustCompile(`@tag\(([A-Za-z0-9_]+)`)

// declaredTags lists the tags the files of one embedded experiment declare.
func declaredTags(t *testing.T, name string) []string {
	t.Helper()
	entries, err := fs.ReadDir(experiments.Files, name)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".cue") {
			continue
		}
		b, err := fs.ReadFile(experiments.Files, path.Join(name, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range tagRE.FindAllStringSubmatch(string(b), -1) {
			if !slices.Contains(out, m[1]) {
				out = append(out, m[1])
			}
		}
	}
	return out
}

// shippedData is where the repository's own data lies for each dataset
// name (testdata/datasets/README.md says what each is).
func shippedData(t *testing.T) map[string]string {
	t.Helper()
	abs := func(rel string) string {
		p, err := filepath.Abs(filepath.Join("../../testdata/datasets", rel))
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	return map[string]string{
		"qmsum":                abs("qmsum"),
		"empathetic_dialogues": abs("empatheticdialogues-format"),
		"esconv":               abs("esconv/FailedESConv.json"),
	}
}

// TestEveryListEntryPlans plans every `mascot list` entry against the data
// the repository ships, with dummy server URLs as the README's plan line
// does (URLs are never defaulted): every stage that reads a dataset counts
// its units, and no plan note says a dataset is missing. Stages whose
// units depend on results not there yet ("after STAGE") and a base model
// that is not in the Hugging Face cache (weights, not data) are all a
// plan may leave uncounted.
func TestEveryListEntryPlans(t *testing.T) {
	names, err := schema.EmbeddedNames()
	if err != nil {
		t.Fatal(err)
	}
	data := shippedData(t)
	dbDir := t.TempDir()
	base := tinyBase(t)
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			tags := declaredTags(t, name)
			var urls []string
			for _, tg := range tags {
				if tg != "data" && tg != "esconv" {
					urls = append(urls, "-t", tg+"=http://127.0.0.1:9/v1")
				}
			}
			var shown shownSpec
			if err := json.Unmarshal([]byte(mascot(t, append([]string{"show", name}, urls...)...)), &shown); err != nil {
				t.Fatal(err)
			}
			args := append([]string{"plan", name, "--format", "json", "--db", filepath.Join(dbDir, "m.db")}, urls...)
			for _, tg := range tags {
				switch tg {
				case "esconv":
					args = append(args, "-t", "esconv="+data["esconv"])
				case "data":
					var kinds []string
					for k, d := range shown.Datasets {
						if k != "esconv" && !slices.Contains(kinds, d.Name) {
							kinds = append(kinds, d.Name)
						}
					}
					if len(kinds) != 1 || data[kinds[0]] == "" {
						t.Fatalf("tag data of %s serves datasets %v; the test knows shipped data for one of qmsum, empathetic_dialogues", name, kinds)
					}
					args = append(args, "-t", "data="+data[kinds[0]])
				}
			}
			if slices.Contains(shown.StageKinds(), "train-sft") {
				// The SFT baselines train from a base model before they
				// read their data; a tiny local one stands in for Qwen3-8B
				// (weights are not data, and none are shipped).
				args = append(args, "--set", "stages.sft.base_model="+base)
			}
			out := mascot(t, args...)
			for label, plan := range plansOf(t, out) {
				counted := 0
				for _, st := range plan {
					switch {
					case st.Units >= 0:
						counted++
						if st.Note != "" {
							t.Errorf("%s%s: counted, with a note: %s", label, st.Key, st.Note)
						}
					case strings.HasPrefix(st.Note, "after "):
					default:
						t.Errorf("%sstage %s (%s) plans no units: %s", label, st.Key, st.Kind, st.Note)
					}
				}
				if counted == 0 {
					t.Errorf("%sno stage of %s counts its units:\n%s", label, name, out)
				}
			}
		})
	}
}

// shownSpec is what the test reads of `mascot show`.
type shownSpec struct {
	Datasets map[string]struct {
		Name string `json:"name"`
	} `json:"datasets"`
	Stages map[string]struct {
		Kind string `json:"kind"`
	} `json:"stages"`
}

// StageKinds lists the kinds of the spec's stages.
func (s shownSpec) StageKinds() []string {
	var out []string
	for _, st := range s.Stages {
		out = append(out, st.Kind)
	}
	return out
}

// planStage is one stage of `mascot plan --format json`.
type planStage struct {
	Key    string   `json:"key"`
	Kind   string   `json:"kind"`
	Inputs []string `json:"inputs"`
	Units  int      `json:"units"`
	Note   string   `json:"note"`
}

// plansOf reads `mascot plan --format json`: one plan, or a sweep's
// variants, each by its label ("" for a plain plan).
func plansOf(t *testing.T, out string) map[string][]planStage {
	t.Helper()
	var one []planStage
	if err := json.Unmarshal([]byte(out), &one); err == nil {
		return map[string][]planStage{"": one}
	}
	var sweep struct {
		Variants []struct {
			Label  string      `json:"label"`
			Stages []planStage `json:"stages"`
		} `json:"variants"`
	}
	if err := json.Unmarshal([]byte(out), &sweep); err != nil || len(sweep.Variants) == 0 {
		t.Fatalf("plan --format json is neither a plan nor a sweep's (%v):\n%s", err, out)
	}
	plans := map[string][]planStage{}
	for _, v := range sweep.Variants {
		plans[v.Label+": "] = v.Stages
	}
	return plans
}
