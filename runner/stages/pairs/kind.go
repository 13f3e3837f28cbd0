package pairs

import (
	_ "embed"

	"mascot.dev/mascot/runner"
	"mascot.dev/mascot/schema"
)

//go:embed pairs.cue
var definition string

// The pairs kind, declared in one call: its CUE definition (pairs.cue), what
// it reads and needs, and its constructor.
func init() {
	runner.Register(runner.Kind{Name: "pairs", Version: "2", Definition: "#Pairs",
		Summary: "chosen/rejected pairs from judged candidates (score-margin filter)", New: New,
		Decl: &schema.KindSpec{Name: "pairs", Definition: "#Pairs", Source: definition,
			Refs: []schema.Ref{{Field: "judged", Target: "stages", Reads: []string{"judge"}}}}})
}
