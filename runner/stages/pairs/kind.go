package pairs

import (
	_ "embed"

	"mascot.dev/mascot/runner"
	"mascot.dev/mascot/schema"
)

//go:embed pairs.cue
var definition string

// The kind, declared in one call, the only place its name is written: its
// CUE definition (pairs.cue), what it reads and needs, and its constructor.
func init() {
	runner.Register(runner.Kind{
		KindSpec: schema.KindSpec{Name: "pairs", Definition: "#Pairs", Source: definition,
			Refs: []schema.Ref{{Field: "judged", Target: "stages", Reads: []string{"judge"}}}},
		Version: "2", Summary: "chosen/rejected pairs from judged candidates (score-margin filter)",
		New: New})
}
