package metrics

import (
	_ "embed"

	"mascot.dev/mascot/runner"
	"mascot.dev/mascot/schema"
)

//go:embed metrics.cue
var definition string

// The metrics kind, declared in one call: its CUE definition (metrics.cue), what
// it reads and needs, and its constructor.
func init() {
	runner.Register(runner.Kind{Name: "metrics", Version: "1", Definition: "#MetricsStage",
		Summary: "automatic metrics (self-BLEU, distinct-n, NLI) over episodes", New: New,
		Decl: &schema.KindSpec{Name: "metrics", Definition: "#MetricsStage", Source: definition,
			Refs: []schema.Ref{{Field: "episodes", Target: "stages", Reads: []string{"episodes"}},
				{Field: "metrics", Target: "metrics", List: true}}}})
}
