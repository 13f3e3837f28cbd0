package schema

// Ref is one field of a stage that names another entity of the experiment.
type Ref struct {
	Field  string // field name in the stage, "items"
	Target string // "stages", "datasets", "rosters", "endpoints", "judges", "metrics", "rewards"
	List   bool   // the field is a list of names
}

var common = []Ref{{Field: "after", Target: "stages", List: true}}

// stageRefs lists, per stage kind, the fields that name other entities.
var stageRefs = map[string][]Ref{
	"candidates": {{Field: "dataset", Target: "datasets"}, {Field: "roster", Target: "rosters"},
		{Field: "endpoint", Target: "endpoints"}},
	"episodes": {{Field: "dataset", Target: "datasets"}, {Field: "roster", Target: "rosters"},
		{Field: "director", Target: "endpoints"}, {Field: "speaker", Target: "endpoints"},
		{Field: "user", Target: "endpoints"}, {Field: "speaker_adapter", Target: "stages"},
		{Field: "director_adapter", Target: "stages"}, {Field: "sft_adapter", Target: "stages"}},
	"judge": {{Field: "items", Target: "stages"}, {Field: "judges", Target: "judges", List: true},
		{Field: "compare", Target: "stages", List: true}},
	"pairs":              {{Field: "judged", Target: "stages"}},
	"metrics":            {{Field: "episodes", Target: "stages"}, {Field: "metrics", Target: "metrics", List: true}},
	"report":             {{Field: "inputs", Target: "stages", List: true}, {Field: "baseline", Target: "stages"}},
	"train-reward-model": {{Field: "pairs", Target: "stages"}, {Field: "base_stage", Target: "stages"}},
	"train-grpo": {{Field: "prompts", Target: "stages"}, {Field: "rewards", Target: "rewards", List: true},
		{Field: "base_stage", Target: "stages"}, {Field: "rollout_endpoint", Target: "endpoints"}},
	"train-dpo": {{Field: "pairs", Target: "stages"}, {Field: "base_stage", Target: "stages"}},
	"train-sft": {{Field: "dataset", Target: "datasets"}, {Field: "base_stage", Target: "stages"}},
	"pretrain":  {},
}

// StageRefs returns the reference fields of a stage kind, the shared
// "after" included.
func StageRefs(kind string) []Ref {
	return append(append([]Ref(nil), common...), stageRefs[kind]...)
}

// Kinds lists every stage kind the language knows.
func Kinds() []string {
	out := make([]string, 0, len(stageRefs))
	for k := range stageRefs {
		out = append(out, k)
	}
	sortStrings(out)
	return out
}

// IsTraining reports whether a stage kind trains a model (holds a device slot).
func IsTraining(kind string) bool {
	switch kind {
	case "train-reward-model", "train-grpo", "train-dpo", "train-sft", "pretrain":
		return true
	}
	return false
}
