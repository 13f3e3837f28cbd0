// Package episodesdecl declares the episodes stage kind to the schema: its
// CUE definition (episodes.cue) and what it reads and needs. It imports
// only schema, so code that loads specs without running stages can import
// it without a cycle; the stage itself is package episodes, one folder up.
package episodesdecl

import (
	_ "embed"
	"encoding/json"

	"mascot.dev/mascot/schema"
)

//go:embed episodes.cue
var source string

// adapterKinds are the training kinds whose LoRA adapters an episodes stage
// hot-loads.
var adapterKinds = []string{"train-grpo", "train-dpo", "train-sft"}

// Spec declares #Episodes. An eval-mode stage reads its dataset as
// evaluation data.
var Spec = schema.KindSpec{Name: "episodes", Definition: "#Episodes", Source: source,
	Endpoints: []string{"speaker", "director"},
	Evaluates: func(f map[string]json.RawMessage) bool { return string(f["mode"]) == `"eval"` },
	Refs: []schema.Ref{{Field: "dataset", Target: "datasets"}, {Field: "roster", Target: "rosters"},
		{Field: "director", Target: "endpoints"}, {Field: "speaker", Target: "endpoints"},
		{Field: "user", Target: "endpoints"},
		{Field: "speaker_adapter", Target: "stages", Reads: adapterKinds},
		{Field: "director_adapter", Target: "stages", Reads: adapterKinds},
		{Field: "sft_adapter", Target: "stages", Reads: adapterKinds}}}

func init() { schema.MustRegisterKind(Spec) }
