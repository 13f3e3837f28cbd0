package candidates

import (
	_ "embed"

	"mascot.dev/mascot/runner"
	"mascot.dev/mascot/schema"
)

//go:embed candidates.cue
var definition string

// The kind, declared in one call, the only place its name is written: its
// CUE definition (candidates.cue), what it reads and needs, and its constructor.
func init() {
	runner.Register(runner.Kind{
		KindSpec: schema.KindSpec{Name: "candidates", Definition: "#Candidates", Source: definition,
			Endpoints: []string{"endpoint"},
			Refs: []schema.Ref{{Field: "dataset", Target: "datasets"}, {Field: "roster", Target: "rosters"},
				{Field: "endpoint", Target: "endpoints"}}},
		Version: "1", Summary: "K Speaker responses per (context, persona) for reward data",
		New: New})
}
