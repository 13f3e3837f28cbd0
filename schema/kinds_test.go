package schema_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"mascot.dev/mascot/schema"
)

// The kinds these tests load specs with are declared here, as a kind's own
// folder declares itself: schema knows no kind, it validates against the
// set it is given.
var (
	sourceKind = schema.KindSpec{Name: "source", Definition: "#Source", Source: `package schema

#Source: {
	#StageCommon
	dataset:  string
	endpoint: *"speaker" | string
	// eval marks the dataset as evaluation data.
	eval: *false | bool
}
`, Endpoints: []string{"endpoint"},
		Evaluates: func(f map[string]json.RawMessage) bool { return string(f["eval"]) == "true" },
		Refs:      []schema.Ref{{Field: "dataset", Target: "datasets"}, {Field: "endpoint", Target: "endpoints"}}}
	repeatKind = schema.KindSpec{Name: "repeat", Definition: "#Repeat", Source: `package schema

// #Repeat repeats the units of a source stage.
#Repeat: {
	#StageCommon
	from:  string
	times: *1 | int & >=1
}
`, Refs: []schema.Ref{{Field: "from", Target: "stages", Reads: []string{"source"}}}}
	baseKind = schema.KindSpec{Name: "base", Definition: "#Base", Device: true, Model: true, Source: `package schema

#Base: {
	#StageCommon
	dataset: string
}
`, Refs: []schema.Ref{{Field: "dataset", Target: "datasets"}}}
	tuneKind = schema.KindSpec{Name: "tune", Definition: "#Tune", Device: true, Source: `package schema

#Tune: {
	#StageCommon
	#ModelRef
	dataset: string
}
`, Refs: []schema.Ref{{Field: "dataset", Target: "datasets"}, {Field: "base_stage", Target: "stages", Reads: []string{"base"}}}}
)

func testKinds(t *testing.T, specs ...schema.KindSpec) *schema.Kinds {
	t.Helper()
	ks, err := schema.NewKinds(specs...)
	if err != nil {
		t.Fatal(err)
	}
	return ks
}

const kindsBase = `package spec

name: "t"
datasets: es: {name: "esconv", path: "data.json"}
datasets: held: {name: "esconv", path: "data.json", split: "validation"}
endpoints: speaker: {urls: ["http://127.0.0.1:1/v1"], model: "m"}
stages: src: {kind: "source", dataset: "es"}
`

func loadWith(t *testing.T, ks *schema.Kinds, body string) (*schema.Loaded, error) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "spec.cue")
	if err := os.WriteFile(p, []byte(kindsBase+body), 0o644); err != nil {
		t.Fatal(err)
	}
	return schema.Load(p, ks, schema.Options{})
}

// TestNewKindsRefusesUnusableDeclarations: each spec must name its kind and
// a #definition its Source defines, once.
func TestNewKindsRefusesUnusableDeclarations(t *testing.T) {
	for _, c := range []struct {
		specs []schema.KindSpec
		want  string
	}{
		{[]schema.KindSpec{{Name: "x", Definition: "#X"}}, `declaring stage kind "x": its Source does not define #X`},
		{[]schema.KindSpec{{Name: "", Definition: "#X", Source: "#X: {}"}}, "want a name and a #Definition"},
		{[]schema.KindSpec{{Name: "x", Definition: "X", Source: "X: {}"}}, "want a name and a #Definition"},
		{[]schema.KindSpec{{Name: `x"y`, Definition: "#X", Source: "#X: {}"}}, "want a name and a #Definition"},
		{[]schema.KindSpec{repeatKind, repeatKind}, `stage kind "repeat" declared twice`},
	} {
		if _, err := schema.NewKinds(c.specs...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("NewKinds(%v): err = %v, want %q", c.specs[0].Name, err, c.want)
		}
	}
}

// TestKindsAnswerFromTheirSpecs: names sorted, model and training kinds from
// the flags, the shared "after" first among a kind's references; a nil set
// knows no kind.
func TestKindsAnswerFromTheirSpecs(t *testing.T) {
	ks := testKinds(t, tuneKind, sourceKind, baseKind, repeatKind)
	if got := ks.Names(); !slices.Equal(got, []string{"base", "repeat", "source", "tune"}) {
		t.Errorf("Names = %v", got)
	}
	if got := ks.ModelKinds(); !slices.Equal(got, []string{"base"}) {
		t.Errorf("ModelKinds = %v", got)
	}
	if !ks.IsTraining("tune") || !ks.IsTraining("base") || ks.IsTraining("source") || ks.IsTraining("nope") {
		t.Error("IsTraining does not follow Device")
	}
	refs := ks.StageRefs("repeat")
	if len(refs) != 2 || refs[0].Field != "after" || !refs[0].List || refs[1].Field != "from" {
		t.Errorf("StageRefs(repeat) = %+v", refs)
	}
	if refs := ks.StageRefs("nope"); len(refs) != 1 {
		t.Errorf("an unknown kind has references %+v", refs)
	}
	var none *schema.Kinds
	if _, ok := none.Lookup("source"); ok || none.Names() != nil || none.IsTraining("base") {
		t.Error("a nil set knows a kind")
	}
}

// TestKindsGiveTheUnion: a spec validates against exactly the set it is
// loaded with: the kind's own bounds hold, its kind field is set by the
// union (the kind's CUE does not name it), its reads are checked, and a
// kind outside the set is refused.
func TestKindsGiveTheUnion(t *testing.T) {
	ks := testKinds(t, sourceKind, repeatKind)
	l, err := loadWith(t, ks, `stages: again: {kind: "repeat", from: "src", times: 3}`+"\n")
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	var c struct {
		Kind  string `json:"kind"`
		Times int    `json:"times"`
	}
	if err := l.Experiment.Stages["again"].Decode(&c); err != nil || c.Times != 3 || c.Kind != "repeat" {
		t.Fatalf("again = %+v, %v", c, err)
	}
	if l.Experiment.Kinds != ks {
		t.Error("the experiment does not carry the kinds it was loaded with")
	}
	if deps := schema.Dependencies(l.Experiment)["again"]; !slices.Equal(deps, []string{"src"}) {
		t.Errorf("repeat depends on %v, want [src]", deps)
	}

	for body, want := range map[string]string{
		`stages: again: {kind: "repeat", from: "src", times: 0}`:                                                 "stages.again.times: invalid value 0 (out of bound >=1)",
		`stages: again: {kind: "repeat", from: "src"}` + "\n" + `stages: twice: {kind: "repeat", from: "again"}`: `stages.twice.from: stage "again" has kind repeat, but repeat.from must name a stage of kind source`,
		`stages: again: {kind: "repeat", from: "nowhere"}`:                                                       `unknown stage "nowhere"`,
		`stages: again: {kind: "repeat", from: "src", extra: 1}`:                                                 "stages.again.extra: field not allowed",
	} {
		if _, err := loadWith(t, ks, body+"\n"); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s:\nerr = %v\nwant %q", body, err, want)
		}
	}
	// The same spec against a set without repeat: the kind is unknown.
	if _, err := loadWith(t, testKinds(t, sourceKind), `stages: again: {kind: "repeat", from: "src"}`+"\n"); err == nil ||
		!strings.Contains(err.Error(), "stages.again.kind") {
		t.Errorf("a kind outside the set: err = %v", err)
	}
}

// TestKindFlagsDriveTheChecks: a training kind (Device) needs a base model
// unless its output is one (Model); a model_stage must name a Model kind;
// Evaluates sorts the datasets into evaluation and training data.
func TestKindFlagsDriveTheChecks(t *testing.T) {
	ks := testKinds(t, sourceKind, baseKind, tuneKind)
	if _, err := loadWith(t, ks, `stages: pre: {kind: "base", dataset: "es"}
stages: ft: {kind: "tune", dataset: "es", base_stage: "pre"}
`); err != nil {
		t.Fatalf("a base stage and a tune on it: %v", err)
	}
	if _, err := loadWith(t, ks, `stages: ft: {kind: "tune", dataset: "es"}`+"\n"); err == nil ||
		!strings.Contains(err.Error(), "stages.ft: a training stage needs base_model (a directory or hub id) or base_stage") {
		t.Errorf("tune without a base: err = %v", err)
	}
	if _, err := loadWith(t, ks, `stages: ft: {kind: "tune", dataset: "es", base_stage: "src"}`+"\n"); err == nil ||
		!strings.Contains(err.Error(), `stage "src" has kind source, but tune.base_stage must name a stage of kind base`) {
		t.Errorf("tune on a source: err = %v", err)
	}

	l, err := loadWith(t, ks, `stages: ev: {kind: "source", dataset: "held", eval: true}
stages: pre: {kind: "base", dataset: "es"}
`)
	if err != nil {
		t.Fatal(err)
	}
	train, eval := schema.DatasetUse(l.Experiment)
	if train["es"] != "pre" || eval["held"] != "ev" || len(eval) != 1 {
		t.Errorf("DatasetUse: train %v, eval %v", train, eval)
	}
	if _, err := loadWith(t, ks, `stages: ev: {kind: "source", dataset: "es", eval: true}
stages: pre: {kind: "base", dataset: "es"}
`); err == nil || !strings.Contains(err.Error(), `dataset "es" is read by training stage pre and evaluation stage ev`) {
		t.Errorf("one dataset for training and evaluation: err = %v", err)
	}
}

// TestNoKindsLoadsAStagelessSpec: an empty set still loads a spec with no
// stages (a roster library, say), and refuses any stage.
func TestNoKindsLoadsAStagelessSpec(t *testing.T) {
	none := testKinds(t)
	p := filepath.Join(t.TempDir(), "spec.cue")
	if err := os.WriteFile(p, []byte("package spec\n\nname: \"t\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := schema.Load(p, none, schema.Options{}); err != nil {
		t.Errorf("a stageless spec with no kinds: %v", err)
	}
	if _, err := loadWith(t, none, ""); err == nil || !strings.Contains(err.Error(), "stages.src.kind") {
		t.Errorf("a stage with no kinds: err = %v", err)
	}
}

// TestVendorWritesTheKindsGiven: the vendored union and kind files are
// those of the set, each definition's kind field fixed by the union.
func TestVendorWritesTheKindsGiven(t *testing.T) {
	dir := t.TempDir()
	if _, err := schema.Vendor(dir, testKinds(t, sourceKind, repeatKind)); err != nil {
		t.Fatal(err)
	}
	gen := filepath.Join(dir, "cue.mod", "gen", "mascot.dev", "schema")
	union, err := os.ReadFile(filepath.Join(gen, "kinds_gen.cue"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`#Kind: "repeat" | "source"`, `"repeat": #Repeat & {kind: "repeat"}`, `"source": #Source & {kind: "source"}`} {
		if !strings.Contains(string(union), want) {
			t.Errorf("the union lacks %q:\n%s", want, union)
		}
	}
	if b, err := os.ReadFile(filepath.Join(gen, "kind_repeat.cue")); err != nil || string(b) != repeatKind.Source {
		t.Errorf("kind_repeat.cue = %q, %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(gen, "kind_base.cue")); !os.IsNotExist(err) {
		t.Errorf("a kind outside the set was vendored: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "cue.mod", "module.cue")); err != nil {
		t.Errorf("no module file: %v", err)
	}
}
