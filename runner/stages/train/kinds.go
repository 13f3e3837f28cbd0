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
	runner.Register(runner.Kind{Name: "train-dpo", Version: "2", Definition: "#TrainDPO", Preflight: devicePreflight,
		Summary: "DPO LoRA adapter on stored preference pairs", New: newDPO,
		Decl: &schema.KindSpec{Name: "train-dpo", Definition: "#TrainDPO", Source: dpoSource, Device: true,
			Refs: []schema.Ref{{Field: "pairs", Target: "stages", Reads: []string{"pairs"}}, baseStage}}})
	runner.Register(runner.Kind{Name: "train-grpo", Version: "1", Definition: "#TrainGRPO", Preflight: devicePreflight,
		Summary: "GRPO LoRA policy (speaker or director) on stored prompts with weighted rewards", New: newGRPO,
		Decl: &schema.KindSpec{Name: "train-grpo", Definition: "#TrainGRPO", Source: grpoSource, Device: true,
			Refs: []schema.Ref{{Field: "prompts", Target: "stages", Reads: []string{"candidates", "episodes"}},
				{Field: "rewards", Target: "rewards", List: true}, baseStage,
				{Field: "rollout_endpoint", Target: "endpoints"}}}})
	runner.Register(runner.Kind{Name: "pretrain", Version: "1", Definition: "#Pretrain", Preflight: devicePreflight,
		Summary: "pretrain a tiny byte-level Qwen3 model from text (demo base)", New: newPretrain,
		Decl: &schema.KindSpec{Name: "pretrain", Definition: "#Pretrain", Source: pretrainSource, Device: true, Model: true}})
	runner.Register(runner.Kind{Name: "train-reward-model", Version: "2", Definition: "#TrainRewardModel", Preflight: devicePreflight,
		Summary: "Bradley-Terry reward model on stored pairs (merged sequence-classification checkpoint)", New: newRM,
		Decl: &schema.KindSpec{Name: "train-reward-model", Definition: "#TrainRewardModel", Source: rmSource, Device: true,
			Refs: []schema.Ref{{Field: "pairs", Target: "stages", Reads: []string{"pairs"}}, baseStage}}})
	runner.Register(runner.Kind{Name: "train-sft", Version: "1", Definition: "#TrainSFT", Preflight: devicePreflight,
		Summary: "supervised LoRA fine-tuning on dataset turns", New: newSFT,
		Decl: &schema.KindSpec{Name: "train-sft", Definition: "#TrainSFT", Source: sftSource, Device: true,
			Refs: []schema.Ref{{Field: "dataset", Target: "datasets"}, baseStage}}})
}
