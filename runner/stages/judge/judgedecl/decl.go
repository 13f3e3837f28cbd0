// Package judgedecl declares the judge stage kind to the schema: its CUE
// definition (judge.cue) and what it reads. It imports only schema, so code
// that loads specs without running stages can import it without a cycle;
// the stage itself is package judge, one folder up.
package judgedecl

import (
	_ "embed"

	"mascot.dev/mascot/schema"
)

//go:embed judge.cue
var source string

// Spec declares #JudgeStage.
var Spec = schema.KindSpec{Name: "judge", Definition: "#JudgeStage", Source: source,
	Refs: []schema.Ref{{Field: "items", Target: "stages", Reads: []string{"candidates", "episodes"}},
		{Field: "judges", Target: "judges", List: true},
		{Field: "compare", Target: "stages", List: true, Reads: []string{"episodes"}}}}

func init() { schema.MustRegisterKind(Spec) }
