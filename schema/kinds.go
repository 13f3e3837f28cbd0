package schema

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"
)

// Ref is one field of a stage that names another entity of the experiment.
type Ref struct {
	Field  string // field name in the stage, "items"
	Target string // "stages", "datasets", "rosters", "endpoints", "judges", "metrics", "rewards"
	List   bool   // the field is a list of names
	// Reads lists the stage kinds a Target "stages" field may name; empty
	// means any kind (ordering-only edges such as "after").
	Reads []string
}

// KindSpec declares one stage kind to the schema: its CUE definition, what
// it reads, and what it needs to run. The stage union (#Kind, #ByKind) is
// assembled from the declared kinds.
type KindSpec struct {
	// Name is the kind as written in CUE ("candidates").
	Name string
	// Definition is the kind's closed CUE definition ("#Candidates").
	Definition string
	// Source is the CUE (package schema) that defines Definition, for a
	// kind declared outside the embedded schema files; empty for built-ins.
	Source string
	// Refs are the fields that name other entities, with the stage kinds
	// each may read.
	Refs []Ref
	// Device says the kind trains a model and holds a device slot.
	Device bool
	// Endpoints are the fields naming endpoints whose concurrency bounds the
	// stage's units in flight when the stage sets none.
	Endpoints []string
	// Evaluates reports whether a stage of this kind, with these resolved
	// fields, reads its datasets as evaluation data; nil means it reads
	// them as training data. Evaluation and training data must not overlap.
	Evaluates func(fields map[string]json.RawMessage) bool
}

// kinds that produce what others read.
var (
	adapterKinds = []string{"train-grpo", "train-dpo", "train-sft"}
	modelKinds   = []string{"pretrain"}
)

func baseStage() Ref { return Ref{Field: "base_stage", Target: "stages", Reads: modelKinds} }

// builtinKinds are the stage kinds defined in stages.cue.
var builtinKinds = []KindSpec{
	{Name: "candidates", Definition: "#Candidates", Endpoints: []string{"endpoint"},
		Refs: []Ref{{Field: "dataset", Target: "datasets"}, {Field: "roster", Target: "rosters"},
			{Field: "endpoint", Target: "endpoints"}}},
	{Name: "episodes", Definition: "#Episodes", Endpoints: []string{"speaker", "director"},
		Evaluates: func(f map[string]json.RawMessage) bool { return string(f["mode"]) == `"eval"` },
		Refs: []Ref{{Field: "dataset", Target: "datasets"}, {Field: "roster", Target: "rosters"},
			{Field: "director", Target: "endpoints"}, {Field: "speaker", Target: "endpoints"},
			{Field: "user", Target: "endpoints"},
			{Field: "speaker_adapter", Target: "stages", Reads: adapterKinds},
			{Field: "director_adapter", Target: "stages", Reads: adapterKinds},
			{Field: "sft_adapter", Target: "stages", Reads: adapterKinds}}},
	{Name: "judge", Definition: "#JudgeStage",
		Refs: []Ref{{Field: "items", Target: "stages", Reads: []string{"candidates", "episodes"}},
			{Field: "judges", Target: "judges", List: true},
			{Field: "compare", Target: "stages", List: true, Reads: []string{"episodes"}}}},
	{Name: "pairs", Definition: "#Pairs",
		Refs: []Ref{{Field: "judged", Target: "stages", Reads: []string{"judge"}}}},
	{Name: "metrics", Definition: "#MetricsStage",
		Refs: []Ref{{Field: "episodes", Target: "stages", Reads: []string{"episodes"}},
			{Field: "metrics", Target: "metrics", List: true}}},
	{Name: "report", Definition: "#ReportStage",
		Refs: []Ref{{Field: "inputs", Target: "stages", List: true, Reads: []string{"judge", "metrics", "episodes"}},
			{Field: "baseline", Target: "stages", Reads: []string{"episodes"}}}},
	{Name: "train-reward-model", Definition: "#TrainRewardModel", Device: true,
		Refs: []Ref{{Field: "pairs", Target: "stages", Reads: []string{"pairs"}}, baseStage()}},
	{Name: "train-grpo", Definition: "#TrainGRPO", Device: true,
		Refs: []Ref{{Field: "prompts", Target: "stages", Reads: []string{"candidates", "episodes"}},
			{Field: "rewards", Target: "rewards", List: true}, baseStage(),
			{Field: "rollout_endpoint", Target: "endpoints"}}},
	{Name: "train-dpo", Definition: "#TrainDPO", Device: true,
		Refs: []Ref{{Field: "pairs", Target: "stages", Reads: []string{"pairs"}}, baseStage()}},
	{Name: "train-sft", Definition: "#TrainSFT", Device: true,
		Refs: []Ref{{Field: "dataset", Target: "datasets"}, baseStage()}},
	{Name: "pretrain", Definition: "#Pretrain", Device: true},
}

// ModelKinds lists the stage kinds whose output is a model directory, what
// base_stage and a builtin endpoint's model_stage may name.
func ModelKinds() []string { return append([]string(nil), modelKinds...) }

var (
	kindsMu sync.RWMutex
	kinds   = map[string]KindSpec{}
)

func init() {
	for _, k := range builtinKinds {
		if err := RegisterKind(k); err != nil {
			panic(err)
		}
	}
}

// RegisterKind declares a stage kind. A kind outside the embedded schema
// brings its CUE in Source; it must define Definition and embed
// #StageCommon. Declaring a name twice is an error.
func RegisterKind(k KindSpec) error {
	kindsMu.Lock()
	defer kindsMu.Unlock()
	if k.Name == "" || strings.ContainsAny(k.Name, "\"\\") || !strings.HasPrefix(k.Definition, "#") {
		return fmt.Errorf("declaring stage kind %q (%s): want a name and a #Definition", k.Name, k.Definition)
	}
	if _, dup := kinds[k.Name]; dup {
		return fmt.Errorf("stage kind %q declared twice", k.Name)
	}
	kinds[k.Name] = k
	return nil
}

// LookupKind returns the declaration of a stage kind.
func LookupKind(name string) (KindSpec, bool) {
	kindsMu.RLock()
	defer kindsMu.RUnlock()
	k, ok := kinds[name]
	return k, ok
}

// Kinds lists every declared stage kind, sorted.
func Kinds() []string {
	kindsMu.RLock()
	defer kindsMu.RUnlock()
	out := make([]string, 0, len(kinds))
	for k := range kinds {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// StageRefs returns the reference fields of a stage kind, the shared
// "after" included.
func StageRefs(kind string) []Ref {
	k, _ := LookupKind(kind)
	return append([]Ref{{Field: "after", Target: "stages", List: true}}, k.Refs...)
}

// IsTraining reports whether a stage kind trains a model (holds a device slot).
func IsTraining(kind string) bool {
	k, _ := LookupKind(kind)
	return k.Device
}

// kindFiles are the generated schema files: the stage union over the
// declared kinds ("schema/kinds_gen.cue") and the source of each kind
// declared outside the schema files ("schema/kind_<name>.cue").
func kindFiles() map[string][]byte {
	names := Kinds()
	var b strings.Builder
	b.WriteString("// Code generated from the declared stage kinds (schema.RegisterKind). DO NOT EDIT.\n\npackage schema\n\n")
	b.WriteString("// #Kind lists the stage kinds.\n#Kind:")
	for i, n := range names {
		if i > 0 {
			b.WriteString(" |")
		}
		fmt.Fprintf(&b, " %q", n)
	}
	b.WriteString("\n\n// #ByKind maps each stage kind to its closed definition.\n#ByKind: {\n")
	out := map[string][]byte{}
	for _, n := range names {
		k, _ := LookupKind(n)
		fmt.Fprintf(&b, "\t%q: %s\n", n, k.Definition)
		if k.Source != "" {
			out["schema/kind_"+n+".cue"] = []byte(k.Source)
		}
	}
	b.WriteString("}\n")
	out["schema/kinds_gen.cue"] = []byte(b.String())
	return out
}
