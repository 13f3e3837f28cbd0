package runner

import (
	"fmt"
	"sort"

	"mascot.dev/mascot/schema"
)

// Kind describes one stage kind.
type Kind struct {
	// Name is the kind as written in CUE ("candidates").
	Name string
	// Version is hashed into fingerprints; bump it when the kind's output
	// for the same inputs changes.
	Version string
	// Definition is the kind's CUE definition ("#Candidates"); built-in
	// kinds take it from their declaration (candidatesdecl.Spec.Definition).
	Definition string
	// Summary is a one-line description for help and docs.
	Summary string
	// New builds the stage from its decoded config.
	New func(env *Env, st schema.Stage) (Stage, error)
	// Preflight, when set, checks that this machine can run the stage
	// before a run writes anything: the device a training stage asks for,
	// the files it reads, the plugins it starts. env holds the experiment,
	// where its relative paths are read (LocalPath) and the plugin starter;
	// nothing runs. Each problem names the config field at fault, as a path
	// from the experiment's root; Execute turns them into positioned
	// errors (exit 2) and Plan into a note.
	Preflight func(env *Env, st schema.Stage) []Problem
	// Decl, for a kind no declaration package declares, declares it to the
	// schema on registration: its CUE (Decl.Source, usually go:embed of the
	// kind's <kind>.cue), the kinds it reads, device and concurrency needs.
	// Built-in kinds keep their declaration in runner/stages/<kind>/<kind>decl
	// instead, so code that loads specs without the stages sees them (see
	// runner/stages/decls); Decl suits a kind only its own tests load
	// (runner/stages/internal/echo).
	Decl *schema.KindSpec
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

// Add adds a kind; a duplicate name, or a kind neither declared to the
// schema nor bringing its Decl, is an error.
func (r *Registry) Add(k Kind) error {
	if _, dup := r.kinds[k.Name]; dup {
		return fmt.Errorf("stage kind %q registered twice", k.Name)
	}
	decl, ok := schema.LookupKind(k.Name)
	if !ok && k.Decl != nil {
		if k.Decl.Name != k.Name {
			return fmt.Errorf("stage kind %q declares schema kind %q", k.Name, k.Decl.Name)
		}
		if err := schema.RegisterKind(*k.Decl); err != nil {
			return err
		}
		decl, ok = *k.Decl, true
	}
	if !ok {
		return fmt.Errorf("stage kind %q has no CUE definition in the schema: import its declaration package or set Kind.Decl", k.Name)
	}
	if k.Definition != "" && k.Definition != decl.Definition {
		return fmt.Errorf("stage kind %q names definition %s, the schema declares %s", k.Name, k.Definition, decl.Definition)
	}
	r.kinds[k.Name] = k
	return nil
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

// Without returns a copy without the named kinds.
func (r *Registry) Without(names ...string) *Registry {
	c := r.Clone()
	for _, n := range names {
		delete(c.kinds, n)
	}
	return c
}

// Problem is one thing a preflight found missing: the config field at
// fault, as a path from the experiment's root ("stages", "pre", "text";
// "judges", "mine", "command"), and what is wrong.
type Problem struct {
	Path []string
	Err  error
}

// StageProblem is a Problem at field of stage st ("" for the stage).
func StageProblem(st schema.Stage, field string, err error) Problem {
	p := []string{"stages", st.Key}
	if field != "" {
		p = append(p, field)
	}
	return Problem{Path: p, Err: err}
}
