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
	// Endpoints are the fields naming endpoints whose concurrency bounds the
	// stage's units in flight when the stage sets none.
	Endpoints []string
	// Evaluates reports whether a stage of this kind, with these resolved
	// fields, reads its datasets as evaluation data; nil means it reads
	// them as training data. Evaluation and training data must not overlap.
	Evaluates func(fields map[string]json.RawMessage) bool
}

// ModelKinds lists the stage kinds whose output is a model directory
// (KindSpec.Model), what base_stage and a builtin endpoint's model_stage may
// name.
func ModelKinds() []string {
	var out []string
	for _, n := range Kinds() {
		if k, _ := LookupKind(n); k.Model {
			out = append(out, n)
		}
	}
	return out
}

var (
	kindsMu sync.RWMutex
	kinds   = map[string]KindSpec{}
)

// MustRegisterKind declares a stage kind from a declaration package's init;
// it panics on an invalid or duplicate declaration, a programming error.
func MustRegisterKind(k KindSpec) {
	if err := RegisterKind(k); err != nil {
		panic(err)
	}
}

// RegisterKind declares a stage kind. The kind brings its CUE in Source; it
// must define Definition and embed #StageCommon. Declaring a name twice is
// an error. The built-in kinds declare themselves from their folders
// (runner/stages/<kind>/<kind>decl); schema itself declares none.
func RegisterKind(k KindSpec) error {
	kindsMu.Lock()
	defer kindsMu.Unlock()
	if k.Name == "" || strings.ContainsAny(k.Name, "\"\\") || !strings.HasPrefix(k.Definition, "#") {
		return fmt.Errorf("declaring stage kind %q (%s): want a name and a #Definition", k.Name, k.Definition)
	}
	if !strings.Contains(k.Source, k.Definition+":") {
		return fmt.Errorf("declaring stage kind %q: its Source does not define %s", k.Name, k.Definition)
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
