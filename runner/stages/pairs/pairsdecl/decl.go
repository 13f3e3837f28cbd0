// Package pairsdecl declares the pairs stage kind to the schema: its CUE
// definition (pairs.cue) and what it reads. It imports only schema, so code
// that loads specs without running stages can import it without a cycle;
// the stage itself is package pairs, one folder up.
package pairsdecl

import (
	_ "embed"

	"mascot.dev/mascot/schema"
)

//go:embed pairs.cue
var source string

// Spec declares #Pairs.
var Spec = schema.KindSpec{Name: "pairs", Definition: "#Pairs", Source: source,
	Refs: []schema.Ref{{Field: "judged", Target: "stages", Reads: []string{"judge"}}}}

func init() { schema.MustRegisterKind(Spec) }
