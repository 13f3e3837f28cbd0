package report

import (
	_ "embed"

	"mascot.dev/mascot/runner"
	"mascot.dev/mascot/schema"
)

//go:embed report.cue
var definition string

// The report kind, declared in one call: its CUE definition (report.cue), what
// it reads and needs, and its constructor.
func init() {
	runner.Register(runner.Kind{Name: "report", Version: "1", Definition: "#ReportStage",
		Summary: "paper-style tables over the run's judgments and metrics", New: New,
		Decl: &schema.KindSpec{Name: "report", Definition: "#ReportStage", Source: definition,
			Refs: []schema.Ref{{Field: "inputs", Target: "stages", List: true, Reads: []string{"judge", "metrics", "episodes"}},
				{Field: "baseline", Target: "stages", Reads: []string{"episodes"}}}}})
}
