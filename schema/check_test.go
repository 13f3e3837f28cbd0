package schema_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"mascot.dev/mascot/schema"
)

// rmKind trains a reward model; loraKind trains an adapter on a base;
// chatKind loads a loraKind's adapter on an endpoint.
var (
	rmKind = schema.KindSpec{Name: "rm", Definition: "#RM", Device: true, RewardModel: true, Source: `package schema

#RM: {
	#StageCommon
	#ModelRef
	dataset: string
}
`, Refs: []schema.Ref{{Field: "dataset", Target: "datasets"}, {Field: "base_stage", Target: "stages", Reads: []string{"base"}}}}
	loraKind = schema.KindSpec{Name: "lora", Definition: "#Lora", Device: true, Source: `package schema

#Lora: {
	#StageCommon
	#ModelRef
	dataset: string
	rewards: [...string]
}
`, Refs: []schema.Ref{{Field: "dataset", Target: "datasets"}, {Field: "rewards", Target: "rewards", List: true},
		{Field: "base_stage", Target: "stages", Reads: []string{"base"}}}}
	chatKind = schema.KindSpec{Name: "chat", Definition: "#Chat", Source: `package schema

#Chat: {
	#StageCommon
	speaker: *"speaker" | string
	adapter?: string
}
`, Refs: []schema.Ref{{Field: "speaker", Target: "endpoints"}, {Field: "adapter", Target: "stages", Reads: []string{"lora"}}},
		Adapters: []schema.AdapterField{{Field: "adapter", Endpoint: "speaker", DefaultEndpoint: "speaker"}}}
)

// loadErrs loads body (after kindsBase) with every test kind and returns
// the errors it reports, one string per error.
func loadErrs(t *testing.T, body string) []string {
	t.Helper()
	_, err := loadWith(t, testKinds(t, sourceKind, repeatKind, baseKind, tuneKind, rmKind, loraKind, chatKind), body)
	if err == nil {
		return nil
	}
	var es schema.Errors
	if !errors.As(err, &es) {
		t.Fatalf("not schema.Errors: %v", err)
	}
	var out []string
	for _, e := range es {
		out = append(out, e.String())
	}
	return out
}

func wantErr(t *testing.T, got []string, want string) {
	t.Helper()
	for _, g := range got {
		if strings.Contains(g, want) {
			return
		}
	}
	t.Errorf("errors %q lack %q", got, want)
}

// TestCrossReferenceChecks: each rule CUE cannot state reports the field
// at fault, with its position in the user's file.
func TestCrossReferenceChecks(t *testing.T) {
	for _, c := range []struct{ name, body, want string }{
		{"names itself", `stages: again: {kind: "repeat", from: "again"}`,
			"stages.again.from: stage \"again\" names itself:\n    "},
		{"unknown dataset", `stages: s2: {kind: "source", dataset: "nope"}`,
			`stages.s2.dataset: unknown dataset "nope" (known: es, held)`},
		{"unknown after", `stages: s2: {kind: "source", dataset: "es", after: ["src", "ghost"]}`,
			`stages.s2.after.1: unknown stage "ghost" (known: s2, src)`},
		{"unknown reward, none defined", `stages: l: {kind: "lora", dataset: "es", base_model: "Org/M", rewards: ["r"]}`,
			`stages.l.rewards.0: unknown reward "r" (none are defined)`},
		{"reward on a non-rm stage", `rewards: r: {kind: "reward-model", stage: "src"}`,
			`rewards.r.stage: "src" is not a rm stage`},
		{"model_stage of a non-model kind", `endpoints: tiny: {kind: "builtin", model: "tiny", model_stage: "src"}`,
			`endpoints.tiny.model_stage: stage "src" has kind source, but model_stage must name a stage of kind base`},
		{"model_stage unknown", `endpoints: tiny: {kind: "builtin", model: "tiny", model_stage: "gone"}`,
			`endpoints.tiny.model_stage: unknown stage "gone" (known: src)`},
		{"duplicate agent up to case", `rosters: r: {agents: [{name: "The Anchor", role: "a", description: "d", style: "s", goals: ["g"]},
	{name: "the  anchor", role: "b", description: "d", style: "s", goals: ["g"]}]}`,
			`rosters.r.agents.1.name: agent name "the  anchor" is agents.0's "The Anchor" up to case and spacing`},
		{"judge endpoint", `judges: j: {plugin: "rubric", endpoint: "nowhere"}`,
			`judges.j.endpoint: unknown endpoint "nowhere" (known: speaker)`},
	} {
		t.Run(c.name, func(t *testing.T) { wantErr(t, loadErrs(t, c.body+"\n"), c.want) })
	}
}

// TestCyclesAreReportedOnce: a cycle through after edges is one error
// naming the whole loop, found only once the references are sound.
func TestCyclesAreReportedOnce(t *testing.T) {
	errs := loadErrs(t, `stages: a: {kind: "source", dataset: "es", after: ["c"]}
stages: b: {kind: "source", dataset: "es", after: ["a"]}
stages: c: {kind: "source", dataset: "es", after: ["b"]}
`)
	n := 0
	for _, e := range errs {
		if strings.Contains(e, "stage cycle: ") {
			n++
			if !strings.Contains(e, "a -> b -> c -> a") && !strings.Contains(e, "b -> c -> a -> b") && !strings.Contains(e, "c -> a -> b -> c") {
				t.Errorf("the cycle does not name the loop in order: %s", e)
			}
		}
	}
	if n != 1 || len(errs) != 1 {
		t.Errorf("errors %q, want the one cycle", errs)
	}
	if errs := loadErrs(t, `stages: a: {kind: "source", dataset: "es", after: ["b"]}
stages: b: {kind: "source", dataset: "es", after: ["a", "ghost"]}
`); len(errs) != 1 || !strings.Contains(errs[0], `unknown stage "ghost"`) {
		t.Errorf("a cycle beside a bad reference: %q, want only the reference", errs)
	}
}

// TestAdaptersMustMatchTheServedBase: an adapter loaded on an endpoint is
// checked against the base it was trained on, by the kind's Adapters.
func TestAdaptersMustMatchTheServedBase(t *testing.T) {
	const train = `stages: l: {kind: "lora", dataset: "es", base_model: "Org/Small"}` + "\n"
	wantErr(t, loadErrs(t, train+`stages: talk: {kind: "chat", adapter: "l"}`+"\n"),
		"stages.talk.adapter: the adapter of stage l is trained on Org/Small, but endpoint speaker serves m")
	if errs := loadErrs(t, `endpoints: small: {urls: ["http://127.0.0.1:1/v1"], model: "Org/Small"}
`+train+`stages: talk: {kind: "chat", speaker: "small", adapter: "l"}`+"\n"); errs != nil {
		t.Errorf("the adapter on its own base: %q", errs)
	}
	if errs := loadErrs(t, `stages: l: {kind: "lora", dataset: "es", base_model: "./weights/small"}
stages: talk: {kind: "chat", adapter: "l"}`+"\n"); errs != nil {
		t.Errorf("a local base path is not compared with a served id: %q", errs)
	}
	wantErr(t, loadErrs(t, `stages: pre: {kind: "base", dataset: "es"}
stages: l: {kind: "lora", dataset: "es", base_stage: "pre"}
stages: talk: {kind: "chat", adapter: "l"}`+"\n"),
		"the adapter of stage l is trained on the model of stage pre, but endpoint speaker serves m")
}

// TestErrorsPrintOneBlockEach: Errors print path, message and positions,
// one block per error, and join the same way as an error string.
func TestErrorsPrintOneBlockEach(t *testing.T) {
	es := schema.Errors{
		{Path: "stages.a.k", Msg: "too small", Positions: []string{"./spec.cue:3:4", "schema/x.cue:1:1"}},
		{Msg: "file-level"},
	}
	var b bytes.Buffer
	es.Print(&b)
	want := "stages.a.k: too small:\n    ./spec.cue:3:4\n    schema/x.cue:1:1\nfile-level\n"
	if b.String() != want {
		t.Errorf("Print = %q, want %q", b.String(), want)
	}
	if es.Error() != strings.TrimSuffix(want, "\n") {
		t.Errorf("Error = %q", es.Error())
	}
}

// TestPositionsPointIntoTheUsersFile: a loaded spec answers where a value
// was written, relative to the working directory; a schema default has no
// position.
func TestPositionsPointIntoTheUsersFile(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "spec.cue"), []byte(kindsBase+`stages: again: {kind: "repeat", from: "src", times: 2}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := schema.Load("spec.cue", testKinds(t, sourceKind, repeatKind), schema.Options{Cwd: dir})
	if err != nil {
		t.Fatal(err)
	}
	if got := l.Positions("stages", "again", "times"); !slices.Equal(got, []string{"./spec.cue:8:53"}) {
		t.Errorf("Positions(times) = %v", got)
	}
	if got := l.Positions("seed"); len(got) != 1 || !strings.HasPrefix(got[0], "mascot.dev/schema/experiment.cue:") {
		t.Errorf("the default seed is at %v, want the schema's line", got)
	}
}

// TestIntegersOutOfRangeArePositioned: an integer past 64 bits is an error
// at the field, not a decode failure.
func TestIntegersOutOfRangeArePositioned(t *testing.T) {
	wantErr(t, loadErrs(t, "seed: 99999999999999999999\n"), "seed: integer 99999999999999999999 is out of range")
}

// TestSetAndOverrideInputErrors: a malformed --set is refused by name
// with the whole assignment quoted.
func TestSetAndOverrideInputErrors(t *testing.T) {
	p := filepath.Join(t.TempDir(), "spec.cue")
	if err := os.WriteFile(p, []byte(kindsBase), 0o644); err != nil {
		t.Fatal(err)
	}
	ks := testKinds(t, sourceKind)
	for set, want := range map[string]string{
		"seed":           `--set: want path=value in "seed"`,
		"=3":             `--set: want path=value in "=3"`,
		"stages[0].x=1":  "--set: ",
		"seed=notanint}": "seed",
	} {
		_, err := schema.Load(p, ks, schema.Options{Sets: []string{set}})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("--set %s: err = %v, want %q", set, err, want)
		}
	}
	l, err := schema.Load(p, ks, schema.Options{Sets: []string{"seed=7", "stages.src.concurrency=3"}})
	if err != nil {
		t.Fatal(err)
	}
	if l.Experiment.Seed != 7 || l.Experiment.Stages["src"].Concurrency != 3 {
		t.Errorf("--set seed=7 concurrency=3 gave seed %d concurrency %d", l.Experiment.Seed, l.Experiment.Stages["src"].Concurrency)
	}
}

// TestCanonicalIsStable: the canonical form sorts keys at every depth, so
// the same config written in another order hashes alike.
func TestCanonicalIsStable(t *testing.T) {
	ks := testKinds(t, sourceKind, repeatKind)
	a, err := loadWith(t, ks, `stages: again: {kind: "repeat", times: 2, from: "src"}`+"\n")
	if err != nil {
		t.Fatal(err)
	}
	b, err := loadWith(t, ks, `stages: again: {from: "src", times: 2, kind: "repeat"}`+"\n")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Canonical, b.Canonical) {
		t.Errorf("canonical forms differ:\n%s\n%s", a.Canonical, b.Canonical)
	}
	if i, j := bytes.Index(a.Canonical, []byte(`"datasets"`)), bytes.Index(a.Canonical, []byte(`"stages"`)); i < 0 || j < i {
		t.Errorf("keys are not sorted: %s", a.Canonical)
	}
}

// TestEvaluationDataStaysApartFromTraining: an evaluation dataset reading
// the same file and split as a training one is refused unless it excludes
// it; exclude must name another dataset.
func TestEvaluationDataStaysApartFromTraining(t *testing.T) {
	const stages = `stages: pre: {kind: "base", dataset: "es"}
stages: ev: {kind: "source", dataset: "same", eval: true}
`
	wantErr(t, loadErrs(t, `datasets: same: {name: "esconv", path: "data.json"}
`+stages), `evaluation dataset "same" (stage ev) draws from the same esconv data and split "test" as training dataset "es" (stage pre): use another split, or set exclude: ["es"]`)
	l, err := loadWith(t, testKinds(t, sourceKind, baseKind), `datasets: same: {name: "esconv", path: "data.json", exclude: ["es"]}
`+stages)
	if err != nil {
		t.Fatalf("with exclude: %v", err)
	}
	if !schema.Excludes(l.Experiment, "same", "es") || schema.Excludes(l.Experiment, "es", "same") {
		t.Error("Excludes does not follow the exclude list")
	}
	wantErr(t, loadErrs(t, `datasets: same: {name: "esconv", path: "data.json", exclude: ["same"]}
`), `datasets.same.exclude.0: exclude names no other dataset: "same"`)
}

// TestUnknownPluginNamesTheBuiltins: a judge or metric without a command
// must be a built-in, and the error lists them.
func TestUnknownPluginNamesTheBuiltins(t *testing.T) {
	wantErr(t, loadErrs(t, `judges: j: {plugin: "rubrik", endpoint: "speaker"}`+"\n"),
		`unknown judge plugin "rubrik" (built-in: "rubric", "markers"; a third-party plugin needs command)`)
	wantErr(t, loadErrs(t, `metrics: m: {plugin: "bleu"}`+"\n"), `unknown metric plugin "bleu"`)
	if errs := loadErrs(t, `judges: j: {plugin: "mine", command: ["./judge"], endpoint: "speaker"}`+"\n"); errs != nil {
		t.Errorf("a third-party judge with its command: %q", errs)
	}
}
