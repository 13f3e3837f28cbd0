package schema_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "mascot.dev/mascot/runner/stages/all" // every built-in stage kind
	"mascot.dev/mascot/schema"
)

// repeatKind is a stage kind declared outside the schema files, the way a new
// kind's folder declares itself: its CUE, what it reads, what it needs.
var repeatKind = schema.KindSpec{
	Name:       "repeat",
	Definition: "#Repeat",
	Source: `package schema

// #Repeat repeats the candidates of another stage.
#Repeat: {
	#StageCommon
	kind:  "repeat"
	from:  string
	times: *1 | int & >=1
}
`,
	Refs:      []schema.Ref{{Field: "from", Target: "stages", Reads: []string{"candidates"}}},
	Endpoints: []string{},
}

func TestRegisteredKindValidates(t *testing.T) {
	if err := schema.RegisterKind(repeatKind); err != nil {
		t.Fatal(err)
	}
	if err := schema.RegisterKind(repeatKind); err == nil {
		t.Error("declaring repeat twice was accepted")
	}
	noSource := schema.KindSpec{Name: "nosource", Definition: "#NoSource"}
	if err := schema.RegisterKind(noSource); err == nil || !strings.Contains(err.Error(), "its Source does not define #NoSource") {
		t.Errorf("a kind without its CUE: err = %v", err)
	}
	dir := t.TempDir()
	base := `package spec

import "mascot.dev/experiments/personas"

name: "t"
datasets: es: {name: "esconv", path: "data.json"}
rosters: support: personas.emotional_support
endpoints: speaker: {urls: ["http://127.0.0.1:1/v1"], model: "m"}
stages: cand: {kind: "candidates", dataset: "es", roster: "support"}
`
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(base+body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	l, err := schema.Load(write("ok.cue", `stages: again: {kind: "repeat", from: "cand", times: 3}`+"\n"), schema.Options{})
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	var c struct {
		Times int `json:"times"`
	}
	if err := l.Experiment.Stages["again"].Decode(&c); err != nil || c.Times != 3 {
		t.Fatalf("times = %d, %v", c.Times, err)
	}
	if deps := schema.Dependencies(l.Experiment)["again"]; len(deps) != 1 || deps[0] != "cand" {
		t.Errorf("repeat depends on %v, want [cand]", deps)
	}

	_, err = schema.Load(write("bad.cue", `stages: again: {kind: "repeat", from: "cand", times: 0}
stages: twice: {kind: "repeat", from: "again"}
`), schema.Options{})
	if err == nil {
		t.Fatal("times 0 was accepted")
	}
	if !strings.Contains(err.Error(), "stages.again.times: invalid value 0 (out of bound >=1)") {
		t.Errorf("error = %v, want the kind's own bound enforced", err)
	}
	_, err = schema.Load(write("reads.cue", `stages: again: {kind: "repeat", from: "cand"}
stages: twice: {kind: "repeat", from: "again"}
`), schema.Options{})
	want := `stages.twice.from: stage "again" has kind repeat, but repeat.from must name a stage of kind candidates`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error = %v, want %q", err, want)
	}
}
