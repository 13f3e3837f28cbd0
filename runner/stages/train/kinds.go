package train

import (
	_ "embed"

	"mascot.dev/mascot/runner"
	"mascot.dev/mascot/schema"
)

var (
	//go:embed rm.cue
	rmSource string
	//go:embed grpo.cue
	grpoSource string
	//go:embed dpo.cue
	dpoSource string
	//go:embed sft.cue
	sftSource string
	//go:embed pretrain.cue
	pretrainSource string
)

// baseStage is #ModelRef's base_stage: it names a kind whose output is a
// base model (pretrain's).
var baseStage = schema.Ref{Field: "base_stage", Target: "stages", Reads: []string{"pretrain"}}

// The training kinds, each declared in one call: its CUE definition, what
// it reads, its constructor. Each trains a model and holds a device slot.
func init() {
	runner.Register(runner.Kind{
		KindSpec: schema.KindSpec{Name: "train-dpo", Definition: "#TrainDPO", Source: dpoSource, Device: true,
			Refs: []schema.Ref{{Field: "pairs", Target: "stages", Reads: []string{"pairs"}}, baseStage}},
		Version: "2", Summary: "DPO LoRA adapter on stored preference pairs",
		New: newDPO, Preflight: devicePreflight})
	runner.Register(runner.Kind{
		KindSpec: schema.KindSpec{Name: "train-grpo", Definition: "#TrainGRPO", Source: grpoSource, Device: true,
			Refs: []schema.Ref{{Field: "prompts", Target: "stages", Reads: []string{"candidates", "episodes"}},
				{Field: "rewards", Target: "rewards", List: true}, baseStage,
				{Field: "rollout_endpoint", Target: "endpoints"}}},
		Version: "2", Summary: "GRPO LoRA policy (speaker or director) on stored prompts with weighted rewards",
		New: newGRPO, Preflight: devicePreflight, Settings: grpoSettings})
	runner.Register(runner.Kind{
		KindSpec: schema.KindSpec{Name: "pretrain", Definition: "#Pretrain", Source: pretrainSource, Device: true, Model: true},
		Version:  "1", Summary: "pretrain a tiny byte-level Qwen3 model from text (demo base)",
		New: newPretrain, Preflight: pretrainPreflight})
	runner.Register(runner.Kind{
		KindSpec: schema.KindSpec{Name: "train-reward-model", Definition: "#TrainRewardModel", Source: rmSource, Device: true, RewardModel: true,
			Refs: []schema.Ref{{Field: "pairs", Target: "stages", Reads: []string{"pairs"}}, baseStage}},
		Version: "3", Summary: "Bradley-Terry reward model on stored pairs (merged sequence-classification checkpoint)",
		New: newRM, Preflight: devicePreflight})
	runner.Register(runner.Kind{
		KindSpec: schema.KindSpec{Name: "train-sft", Definition: "#TrainSFT", Source: sftSource, Device: true,
			Refs: []schema.Ref{{Field: "dataset", Target: "datasets"}, baseStage}},
		Version: "1", Summary: "supervised LoRA fine-tuning on dataset turns",
		New: newSFT, Preflight: devicePreflight})
}
