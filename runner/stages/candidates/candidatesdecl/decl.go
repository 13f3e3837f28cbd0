// Package candidatesdecl declares the candidates stage kind to the schema:
// its CUE definition (candidates.cue) and what it reads and needs. It
// imports only schema, so code that loads specs without running stages
// (schema's and the runner's tests) can import it without a cycle; the
// stage itself is package candidates, one folder up.
package candidatesdecl

import (
	_ "embed"

	"mascot.dev/mascot/schema"
)

//go:embed candidates.cue
var source string

// Spec declares #Candidates.
var Spec = schema.KindSpec{Name: "candidates", Definition: "#Candidates", Source: source,
	Endpoints: []string{"endpoint"},
	Refs: []schema.Ref{{Field: "dataset", Target: "datasets"}, {Field: "roster", Target: "rosters"},
		{Field: "endpoint", Target: "endpoints"}}}

func init() { schema.MustRegisterKind(Spec) }
