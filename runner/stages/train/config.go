package train

import (
	"math"

	"mascot.dev/mascot/trainer/optim"
	"mascot.dev/mascot/trainer/pass"
	"mascot.dev/mascot/trainer/train"
)

// Optim is #Optim.
type Optim struct {
	LR              float64 `json:"lr"`
	Epochs          int     `json:"epochs"`
	MaxSteps        int     `json:"max_steps"`
	BatchSize       int     `json:"batch_size"`
	GradAccum       int     `json:"grad_accum"`
	WarmupRatio     float64 `json:"warmup_ratio"`
	WeightDecay     float64 `json:"weight_decay"`
	MaxGradNorm     float64 `json:"max_grad_norm"`
	MaxLength       int     `json:"max_length"`
	Seed            int64   `json:"seed"`
	CheckpointEvery int     `json:"checkpoint_every"`
	// Device is the compute backend: "cpu" or "cuda".
	Device string `json:"device"`
}

// LoRA is #LoRA.
type LoRA struct {
	R       int      `json:"r"`
	Alpha   float64  `json:"alpha"`
	Dropout float64  `json:"dropout"`
	Targets []string `json:"targets"`
	RSLoRA  bool     `json:"rslora"`
}

// ModelRef is #ModelRef.
type ModelRef struct {
	BaseModel string `json:"base_model,omitempty"`
	BaseStage string `json:"base_stage,omitempty"`
}

// steps is max_steps, or epochs over n examples in batches.
func (o Optim) steps(n int) int {
	if o.MaxSteps > 0 {
		return o.MaxSteps
	}
	b := max(1, o.BatchSize*max(1, o.GradAccum))
	return max(1, max(1, o.Epochs)*int(math.Ceil(float64(n)/float64(b))))
}

// options converts the settings for n examples; seed is the stage seed
// used when the config leaves seed 0.
func (o Optim) options(n int, seed int64, out string, l *LoRA) train.Options {
	steps := o.steps(n)
	s := o.Seed
	if s == 0 {
		s = seed
	}
	opt := train.Options{Steps: steps, BatchSize: max(1, o.BatchSize), GradAccum: max(1, o.GradAccum),
		Optim: optim.Config{LR: o.LR, WeightDecay: o.WeightDecay, MaxGradNorm: o.MaxGradNorm,
			WarmupSteps: int(o.WarmupRatio * float64(steps)), TotalSteps: steps},
		MaxLength: o.MaxLength, Seed: uint64(s), OutputDir: out,
		// Checkpoints sit beside the output in the run directory, so a Slurm
		// job requeued before its time limit resumes where it stopped.
		CheckpointDir: out + "-checkpoint", CheckpointEvery: o.CheckpointEvery}
	if l != nil && l.R > 0 {
		opt.LoRA = &pass.LoRAConfig{R: l.R, Alpha: l.Alpha, UseRSLoRA: l.RSLoRA, Dropout: l.Dropout, Targets: l.Targets}
	}
	return opt
}
