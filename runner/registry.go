package runner

import (
	"fmt"
	"sort"

	"mascot.dev/mascot/schema"
)

// Kind is one stage kind, declared in one call (Register) from the kind's
// own package: what the schema needs (the embedded schema.KindSpec: name,
// CUE definition and source, what it reads, its device and concurrency
// needs) and what the runner needs (version, summary, constructor).
type Kind struct {
	schema.KindSpec
	// Version is hashed into fingerprints; bump it when the kind's output
	// for the same inputs changes.
	Version string
	// Summary is a one-line description for help and docs.
	Summary string
	// New builds the stage from its decoded config.
	New func(env *Env, st schema.Stage) (Stage, error)
	// Preflight, when set, checks that this machine can run the stage (the
	// device a training stage asks for) before a run writes anything. It
	// returns the config field at fault and what is missing; Execute turns
	// it into a positioned error (exit 2) and Plan into a note.
	Preflight func(st schema.Stage) (field string, err error)
	// Settings, when set, is a short line of the settings that shape a
	// stage's work beyond its inputs (the Director's rollout horizon),
	// which the plan shows beside its inputs; "" shows nothing.
	Settings func(st schema.Stage) string
}

// Registry maps kind names to kinds. It is an explicit value so tests build
// one holding only what they need.
type Registry struct {
	kinds map[string]Kind
}

// NewEmptyRegistry returns a registry with no kinds.
func NewEmptyRegistry() *Registry { return &Registry{kinds: map[string]Kind{}} }

// Default is the registry the stage packages register into from init.
var Default = NewEmptyRegistry()

// Register adds k to the default registry; it panics on a duplicate, which
// is a programming error.
func Register(k Kind) {
	if err := Default.Add(k); err != nil {
		panic(err)
	}
}

// Add adds a kind; a duplicate name, or a declaration the schema cannot
// use (schema.KindSpec.Check), is an error.
func (r *Registry) Add(k Kind) error {
	if err := k.Check(); err != nil {
		return err
	}
	if _, dup := r.kinds[k.Name]; dup {
		return fmt.Errorf("stage kind %q registered twice", k.Name)
	}
	r.kinds[k.Name] = k
	return nil
}

// Kinds is the set of the registry's kinds as the schema knows them, what
// schema.Load validates a spec against. It panics on a kind the schema
// cannot use, which only With can add, a programming error.
func (r *Registry) Kinds() *schema.Kinds {
	specs := make([]schema.KindSpec, 0, len(r.kinds))
	for _, n := range r.Names() {
		specs = append(specs, r.kinds[n].KindSpec)
	}
	ks, err := schema.NewKinds(specs...)
	if err != nil {
		panic(err)
	}
	return ks
}

// Lookup returns the kind named name.
func (r *Registry) Lookup(name string) (Kind, bool) {
	k, ok := r.kinds[name]
	return k, ok
}

// Names lists the registered kinds, sorted.
func (r *Registry) Names() []string {
	out := make([]string, 0, len(r.kinds))
	for n := range r.kinds {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Clone returns an independent copy.
func (r *Registry) Clone() *Registry {
	c := NewEmptyRegistry()
	for n, k := range r.kinds {
		c.kinds[n] = k
	}
	return c
}

// With returns a copy with k added or replaced.
func (r *Registry) With(k Kind) *Registry {
	c := r.Clone()
	c.kinds[k.Name] = k
	return c
}

// WithStage returns a copy in which the registered kind name builds its
// stages with newStage and fingerprints them under version, its
// declaration unchanged: how a test stands a fake in for a real kind. It
// panics when name is not registered, a programming error.
func (r *Registry) WithStage(name, version string, newStage func(env *Env, st schema.Stage) (Stage, error)) *Registry {
	k, ok := r.kinds[name]
	if !ok {
		panic(fmt.Sprintf("stage kind %q is not registered", name))
	}
	k.Version, k.New, k.Preflight = version, newStage, nil
	return r.With(k)
}

// Without returns a copy without the named kinds.
func (r *Registry) Without(names ...string) *Registry {
	c := r.Clone()
	for _, n := range names {
		delete(c.kinds, n)
	}
	return c
}
