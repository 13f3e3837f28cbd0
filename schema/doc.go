// Package schema is the experiment language: the embedded CUE definitions
// (#Experiment, #Stage kinds, ...) and the Go loader that resolves a spec by
// embedded name ("paper/qmsum") or by file, applies -t tags and --set
// overrides, validates it, reports every error with file:line:col and field
// path, and decodes it into typed Go structs with a canonical JSON form for
// fingerprints.
//
// Stage kinds are values (KindSpec, gathered in a Kinds set) that callers
// pass to Load: each kind brings its CUE definition and what it reads, and
// the stage union is generated from the set. schema knows no kind itself;
// the runner's registry, filled by the stage packages
// (runner/stages/<kind>), hands out the set it holds.
//
// Layer: the bottom of the stack next to results and trainer; it imports no
// runner package. User files import the embedded packages
// ("mascot.dev/schema", "mascot.dev/experiments/...") through a load overlay
// that places them under cue.mod/gen of the user's module (or of a synthetic
// one when the user has none).
//
// Overrides: --set follows CUE's lattice, narrowing open fields and fields
// with a default (*x | T); a field the spec already made concrete cannot
// be changed by it and reports a conflict, which is why paper configs
// leave tunable values at their schema defaults. Options.Overrides (sweep
// axes, `mascot run -m`) replace instead: they rewrite the declarations of
// their path in the spec's own files before evaluation (override.go).
// Validation also refuses an adapter loaded on an endpoint serving another
// base model than the one it was trained on (adapters.go).
package schema
