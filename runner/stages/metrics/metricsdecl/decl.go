// Package metricsdecl declares the metrics stage kind to the schema: its
// CUE definition (metrics.cue) and what it reads. It imports only schema,
// so code that loads specs without running stages can import it without a
// cycle; the stage itself is package metrics, one folder up.
package metricsdecl

import (
	_ "embed"

	"mascot.dev/mascot/schema"
)

//go:embed metrics.cue
var source string

// Spec declares #MetricsStage.
var Spec = schema.KindSpec{Name: "metrics", Definition: "#MetricsStage", Source: source,
	Refs: []schema.Ref{{Field: "episodes", Target: "stages", Reads: []string{"episodes"}},
		{Field: "metrics", Target: "metrics", List: true}}}

func init() { schema.MustRegisterKind(Spec) }
