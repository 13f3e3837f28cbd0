// Package traindecl declares the training stage kinds to the schema: their
// CUE definitions (rm.cue, grpo.cue, dpo.cue, sft.cue, pretrain.cue) and
// what each reads and needs. It imports only schema, so code that loads
// specs without running stages can import it without a cycle; the stages
// themselves are package train, one folder up.
package traindecl

import (
	_ "embed"

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
// base model (Pretrain.Model).
func baseStage() schema.Ref {
	return schema.Ref{Field: "base_stage", Target: "stages", Reads: []string{Pretrain.Name}}
}

// The training kinds; each trains a model and holds a device slot.
var (
	// RewardModel declares #TrainRewardModel.
	RewardModel = schema.KindSpec{Name: "train-reward-model", Definition: "#TrainRewardModel", Source: rmSource, Device: true,
		Refs: []schema.Ref{{Field: "pairs", Target: "stages", Reads: []string{"pairs"}}, baseStage()}}
	// GRPO declares #TrainGRPO.
	GRPO = schema.KindSpec{Name: "train-grpo", Definition: "#TrainGRPO", Source: grpoSource, Device: true,
		Refs: []schema.Ref{{Field: "prompts", Target: "stages", Reads: []string{"candidates", "episodes"}},
			{Field: "rewards", Target: "rewards", List: true}, baseStage(),
			{Field: "rollout_endpoint", Target: "endpoints"}}}
	// DPO declares #TrainDPO.
	DPO = schema.KindSpec{Name: "train-dpo", Definition: "#TrainDPO", Source: dpoSource, Device: true,
		Refs: []schema.Ref{{Field: "pairs", Target: "stages", Reads: []string{"pairs"}}, baseStage()}}
	// SFT declares #TrainSFT.
	SFT = schema.KindSpec{Name: "train-sft", Definition: "#TrainSFT", Source: sftSource, Device: true,
		Refs: []schema.Ref{{Field: "dataset", Target: "datasets"}, baseStage()}}
	// Pretrain declares #Pretrain; its output is a base model.
	Pretrain = schema.KindSpec{Name: "pretrain", Definition: "#Pretrain", Source: pretrainSource, Device: true, Model: true}
)

func init() {
	for _, k := range []schema.KindSpec{RewardModel, GRPO, DPO, SFT, Pretrain} {
		schema.MustRegisterKind(k)
	}
}
