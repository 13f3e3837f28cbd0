package judge

import (
	_ "embed"

	"mascot.dev/mascot/runner"
	"mascot.dev/mascot/schema"
)

//go:embed judge.cue
var definition string

// The kind, declared in one call, the only place its name is written: its
// CUE definition (judge.cue), what it reads and needs, and its constructor.
func init() {
	runner.Register(runner.Kind{
		KindSpec: schema.KindSpec{Name: "judge", Definition: "#JudgeStage", Source: definition,
			Refs: []schema.Ref{{Field: "items", Target: "stages", Reads: []string{"candidates", "episodes"}},
				{Field: "judges", Target: "judges", List: true},
				{Field: "compare", Target: "stages", List: true, Reads: []string{"episodes"}}}},
		Version: "1", Summary: "score candidates, turns or episodes with judge plugins",
		New: New})
}
