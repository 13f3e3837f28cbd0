// Package echo is an example stage kind kept in one folder, in the pattern
// every built-in kind follows (docs/spec.md, "Adding a kind"): its CUE
// definition (echo.cue, embedded), one registration call declaring it
// (what it reads, its needs, its constructor), its config and its test.
// Tests import it; the mascot binary does not (it is not in
// runner/stages/all).
//
// Layer: runner/stages.
package echo

import (
	"context"
	_ "embed"
	"fmt"

	"mascot.dev/mascot/results"
	"mascot.dev/mascot/runner"
	"mascot.dev/mascot/schema"
)

//go:embed echo.cue
var definition string

// Config is #Echo.
type Config struct {
	From  string `json:"from"`
	Times int    `json:"times"`
}

// The kind, declared in one call: the only place its name is written.
func init() {
	runner.Register(runner.Kind{
		KindSpec: schema.KindSpec{Name: "echo", Definition: "#Echo", Source: definition,
			Refs: []schema.Ref{{Field: "from", Target: "stages", Reads: []string{"candidates"}}}},
		Version: "1", Summary: "copies of a candidates stage's units (example kind)",
		New: New})
}

type stage struct {
	env *runner.Env
	cfg Config
}

// New builds the stage.
func New(env *runner.Env, st schema.Stage) (runner.Stage, error) {
	s := &stage{env: env}
	return s, st.Decode(&s.cfg)
}

// Units is one unit per copy of the upstream stage's units.
func (s *stage) Units(ctx context.Context) ([]runner.Unit, error) {
	out, err := s.env.Output(s.cfg.From)
	if err != nil {
		return nil, err
	}
	var units []runner.Unit
	for i := range s.cfg.Times {
		units = append(units, runner.Unit{Key: fmt.Sprintf("copy=%d", i), Inputs: map[string]any{"copy": i, "of": out.Units}})
	}
	return units, nil
}

// Run records the unit; the copy itself is the unit row.
func (s *stage) Run(ctx context.Context, u runner.Unit) (runner.Commit, error) {
	return func(tx *results.Tx) error { return nil }, nil
}
