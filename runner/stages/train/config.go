package train

import (
	"fmt"
	"math"
	"os"
	"path/filepath"

	"mascot.dev/mascot/runner"
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
// used when the config leaves seed 0; ckpt is the unit's checkpoint
// directory (checkpointDir).
func (o Optim) options(n int, seed int64, out, ckpt string, l *LoRA) train.Options {
	steps := o.steps(n)
	s := o.Seed
	if s == 0 {
		s = seed
	}
	opt := train.Options{Steps: steps, BatchSize: max(1, o.BatchSize), GradAccum: max(1, o.GradAccum),
		Optim: optim.Config{LR: o.LR, WeightDecay: o.WeightDecay, MaxGradNorm: o.MaxGradNorm,
			WarmupSteps: int(o.WarmupRatio * float64(steps)), TotalSteps: steps},
		MaxLength: o.MaxLength, Seed: uint64(s), OutputDir: out,
		CheckpointDir: ckpt, CheckpointEvery: o.CheckpointEvery}
	if l != nil && l.R > 0 {
		opt.LoRA = &pass.LoRAConfig{R: l.R, Alpha: l.Alpha, UseRSLoRA: l.RSLoRA, Dropout: l.Dropout, Targets: l.Targets}
	}
	return opt
}

// checkpointDir is where a training unit keeps its resumable state:
// RunsDir/checkpoints/<unit fingerprint>, the same for every run of the
// same unit, so rerunning an interrupted command (a new run directory)
// or a Slurm job requeued before its time limit resumes from the last
// checkpoint instead of step 0. A unit that finishes removes it
// (doneTraining).
func checkpointDir(env *runner.Env, u runner.Unit) string {
	return filepath.Join(filepath.Dir(env.RunDir), "checkpoints", u.Fingerprint)
}

// doneTraining removes a finished unit's checkpoint: its result is about
// to be committed, and a later run of the unit is a cache hit.
func doneTraining(ckpt string) error {
	if err := os.RemoveAll(ckpt); err != nil {
		return fmt.Errorf("removing the finished checkpoint: %w", err)
	}
	// The shared checkpoints/ folder goes too once no unit has one there
	// (Remove refuses a folder that is not empty: another unit's, running).
	_ = os.Remove(filepath.Dir(ckpt))
	return nil
}
