package metrics

import (
	_ "embed"

	"mascot.dev/mascot/runner"
	"mascot.dev/mascot/schema"
)

//go:embed metrics.cue
var definition string

// The kind, declared in one call, the only place its name is written: its
// CUE definition (metrics.cue), what it reads and needs, and its constructor.
func init() {
	runner.Register(runner.Kind{
		KindSpec: schema.KindSpec{Name: "metrics", Definition: "#MetricsStage", Source: definition,
			Refs: []schema.Ref{{Field: "episodes", Target: "stages", Reads: []string{"episodes"}},
				{Field: "metrics", Target: "metrics", List: true}}},
		Version: "1", Summary: "automatic metrics (self-BLEU, distinct-n, NLI) over episodes",
		New: New})
}
