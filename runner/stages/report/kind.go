package report

import (
	_ "embed"

	"mascot.dev/mascot/runner"
	"mascot.dev/mascot/schema"
)

//go:embed report.cue
var definition string

// The kind, declared in one call, the only place its name is written: its
// CUE definition (report.cue), what it reads and needs, and its constructor.
func init() {
	runner.Register(runner.Kind{
		KindSpec: schema.KindSpec{Name: "report", Definition: "#ReportStage", Source: definition,
			Refs: []schema.Ref{{Field: "inputs", Target: "stages", List: true, Reads: []string{"judge", "metrics", "episodes"}},
				{Field: "baseline", Target: "stages", Reads: []string{"episodes"}}}},
		Version: "1", Summary: "paper-style tables over the run's judgments and metrics",
		New: New})
}
