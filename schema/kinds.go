package schema

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
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

// KindSpec is what the schema knows of one stage kind: its CUE definition,
// what it reads, and what it needs to run. The stage union (#Kind,
// #ByKind) is assembled from the kinds a spec is loaded with (Kinds).
type KindSpec struct {
	// Name is the kind as written in CUE ("candidates"). It is written only
	// here: the union sets the definition's kind field to it.
	Name string
	// Definition is the kind's closed CUE definition ("#Candidates").
	Definition string
	// Source is the CUE (package schema) that defines Definition, usually
	// the kind's <kind>.cue embedded with go:embed in its own folder. It is
	// vendored and overlaid as schema/kind_<name>.cue.
	Source string
	// Refs are the fields that name other entities, with the stage kinds
	// each may read.
	Refs []Ref
	// Device says the kind trains a model and holds a device slot.
	Device bool
	// Model says the kind's output is a base model directory, what
	// base_stage and a builtin endpoint's model_stage may name.
	Model bool
	// RewardModel says the kind's output is a reward model, what a reward
	// of kind reward-model may name.
	RewardModel bool
	// Adapters are the fields naming a training stage whose LoRA adapter a
	// stage of this kind loads on an endpoint; validation refuses an
	// adapter trained on another base model than the endpoint serves.
	Adapters []AdapterField
	// Endpoints are the fields naming endpoints whose concurrency bounds the
	// stage's units in flight when the stage sets none.
	Endpoints []string
	// Evaluates reports whether a stage of this kind, with these resolved
	// fields, reads its datasets as evaluation data; nil means it reads
	// them as training data. Evaluation and training data must not overlap.
	Evaluates func(fields map[string]json.RawMessage) bool
}

// AdapterField is a field naming a training stage whose adapter is loaded
// on the endpoint the field Endpoint names (DefaultEndpoint when unset).
type AdapterField struct {
	Field, Endpoint, DefaultEndpoint string
}

// Check reports what makes k unusable: a missing name or definition, or a
// Source that does not define Definition.
func (k KindSpec) Check() error {
	if k.Name == "" || strings.ContainsAny(k.Name, "\"\\") || !strings.HasPrefix(k.Definition, "#") {
		return fmt.Errorf("declaring stage kind %q (%s): want a name and a #Definition", k.Name, k.Definition)
	}
	if !strings.Contains(k.Source, k.Definition+":") {
		return fmt.Errorf("declaring stage kind %q: its Source does not define %s", k.Name, k.Definition)
	}
	return nil
}

// Kinds is the set of stage kinds a spec is loaded against. It is a value
// the caller builds (the runner's registry hands out the kinds registered
// with it) and passes to Load; schema itself knows no kind.
type Kinds struct {
	specs map[string]KindSpec
	names []string
}

// NewKinds checks each spec and returns the set; a name given twice is an
// error.
func NewKinds(specs ...KindSpec) (*Kinds, error) {
	ks := &Kinds{specs: make(map[string]KindSpec, len(specs))}
	for _, k := range specs {
		if err := k.Check(); err != nil {
			return nil, err
		}
		if _, dup := ks.specs[k.Name]; dup {
			return nil, fmt.Errorf("stage kind %q declared twice", k.Name)
		}
		ks.specs[k.Name] = k
		ks.names = append(ks.names, k.Name)
	}
	sort.Strings(ks.names)
	return ks, nil
}

// Lookup returns the kind named name. A nil set holds no kind.
func (ks *Kinds) Lookup(name string) (KindSpec, bool) {
	if ks == nil {
		return KindSpec{}, false
	}
	k, ok := ks.specs[name]
	return k, ok
}

// Names lists the kinds, sorted.
func (ks *Kinds) Names() []string {
	if ks == nil {
		return nil
	}
	return append([]string(nil), ks.names...)
}

// ModelKinds lists the kinds whose output is a model directory
// (KindSpec.Model), what base_stage and a builtin endpoint's model_stage
// may name.
func (ks *Kinds) ModelKinds() []string {
	var out []string
	for _, n := range ks.Names() {
		if ks.specs[n].Model {
			out = append(out, n)
		}
	}
	return out
}

// RewardModelKinds lists the kinds whose output is a reward model
// (KindSpec.RewardModel).
func (ks *Kinds) RewardModelKinds() []string {
	var out []string
	for _, n := range ks.Names() {
		if ks.specs[n].RewardModel {
			out = append(out, n)
		}
	}
	return out
}

// StageRefs returns the reference fields of a stage kind, the shared
// "after" included.
func (ks *Kinds) StageRefs(kind string) []Ref {
	k, _ := ks.Lookup(kind)
	return append([]Ref{{Field: "after", Target: "stages", List: true}}, k.Refs...)
}

// IsTraining reports whether a stage kind trains a model (holds a device slot).
func (ks *Kinds) IsTraining(kind string) bool {
	k, _ := ks.Lookup(kind)
	return k.Device
}

// files are the generated schema files: the stage union over the kinds
// ("schema/kinds_gen.cue") and the source of each ("schema/kind_<name>.cue").
// The union, not the kind's source, fixes each definition's kind field, so
// a kind's name is written once, in its KindSpec.
func (ks *Kinds) files() map[string][]byte {
	names := ks.Names()
	var b strings.Builder
	b.WriteString("// Code generated from the stage kinds a spec is loaded with (schema.Kinds). DO NOT EDIT.\n\npackage schema\n\n")
	b.WriteString("// #Kind lists the stage kinds.\n#Kind:")
	if len(names) == 0 {
		b.WriteString(` =~"^$" & =~"." // no stage kinds: no value is a kind`)
	}
	for i, n := range names {
		if i > 0 {
			b.WriteString(" |")
		}
		fmt.Fprintf(&b, " %q", n)
	}
	b.WriteString("\n\n// #ByKind maps each stage kind to its closed definition.\n#ByKind: {\n")
	out := map[string][]byte{}
	for _, n := range names {
		k := ks.specs[n]
		fmt.Fprintf(&b, "\t%q: %s & {kind: %q}\n", n, k.Definition, n)
		out["schema/kind_"+n+".cue"] = []byte(k.Source)
	}
	b.WriteString("}\n")
	out["schema/kinds_gen.cue"] = []byte(b.String())
	return out
}
