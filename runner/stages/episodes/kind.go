package episodes

import (
	_ "embed"
	"encoding/json"

	"mascot.dev/mascot/runner"
	"mascot.dev/mascot/schema"
)

//go:embed episodes.cue
var definition string

// adapterKinds are the training kinds whose LoRA adapters an episodes stage
// hot-loads.
var adapterKinds = []string{"train-grpo", "train-dpo", "train-sft"}

// The kind, declared in one call, the only place its name is written: its
// CUE definition (episodes.cue), what it reads and needs, and its constructor.
func init() {
	runner.Register(runner.Kind{
		KindSpec: schema.KindSpec{Name: "episodes", Definition: "#Episodes", Source: definition,
			Endpoints: []string{"speaker", "director"},
			Adapters: []schema.AdapterField{{Field: "speaker_adapter", Endpoint: "speaker", DefaultEndpoint: "speaker"},
				{Field: "director_adapter", Endpoint: "director", DefaultEndpoint: "director"},
				{Field: "sft_adapter", Endpoint: "speaker", DefaultEndpoint: "speaker"}},
			Evaluates: func(f map[string]json.RawMessage) bool { return string(f["mode"]) == `"eval"` },
			Refs: []schema.Ref{{Field: "dataset", Target: "datasets"}, {Field: "roster", Target: "rosters"},
				{Field: "director", Target: "endpoints"}, {Field: "speaker", Target: "endpoints"},
				{Field: "user", Target: "endpoints"},
				{Field: "speaker_adapter", Target: "stages", Reads: adapterKinds},
				{Field: "director_adapter", Target: "stages", Reads: adapterKinds},
				{Field: "sft_adapter", Target: "stages", Reads: adapterKinds}}},
		Version: "1", Summary: "MASCOT and baseline conversations: independent, branching (Director trees) or eval",
		New: New})
}
