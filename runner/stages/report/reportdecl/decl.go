// Package reportdecl declares the report stage kind to the schema: its CUE
// definition (report.cue) and what it reads. It imports only schema, so
// code that loads specs without running stages can import it without a
// cycle; the stage itself is package report, one folder up.
package reportdecl

import (
	_ "embed"

	"mascot.dev/mascot/schema"
)

//go:embed report.cue
var source string

// Spec declares #ReportStage.
var Spec = schema.KindSpec{Name: "report", Definition: "#ReportStage", Source: source,
	Refs: []schema.Ref{{Field: "inputs", Target: "stages", List: true, Reads: []string{"judge", "metrics", "episodes"}},
		{Field: "baseline", Target: "stages", Reads: []string{"episodes"}}}}

func init() { schema.MustRegisterKind(Spec) }
