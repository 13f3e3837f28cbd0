package pass

import (
	"fmt"
	"math"
	"slices"

	"mascot.dev/mascot/trainer/lora"
)

// Trainable selects which parameters receive gradients.
type Trainable int

const (
	// TrainNone freezes everything (evaluation, sampling).
	TrainNone Trainable = iota
	// TrainLoRA trains only the LoRA A/B matrices (policies: GRPO, DPO, SFT).
	TrainLoRA
	// TrainLoRAAndScore trains the adapters and the score head (reward models).
	TrainLoRAAndScore
	// TrainAll trains every parameter (pretraining, full fine-tuning).
	TrainAll
)

// LoRAConfig describes the low-rank adapters added to the frozen base
// projections: y = W·x + scaling·B·(A·dropout(x)) (docs/design/peft.md).
type LoRAConfig struct {
	// R is the adapter rank (PEFT "r"); at least 2, because gorgonia (the
	// autodiff network) treats an [n,1] matrix as a vector.
	R int
	// Alpha is PEFT's lora_alpha.
	Alpha float64
	// UseRSLoRA selects scaling alpha/sqrt(r) instead of alpha/r.
	UseRSLoRA bool
	// Dropout is the probability of zeroing an input of the LoRA branch
	// while training (lora_dropout); 0 disables it.
	Dropout float64
	// Targets names the adapted projections (a subset of lora.AllTargets);
	// empty means all of them.
	Targets []string
}

// Scaling returns the factor applied to B·A: alpha/r, or alpha/sqrt(r)
// with rsLoRA (PEFT update_layer).
func (c LoRAConfig) Scaling() float64 {
	if c.UseRSLoRA {
		return c.Alpha / math.Sqrt(float64(c.R))
	}
	return c.Alpha / float64(c.R)
}

// TargetList returns the adapted projections, lora.AllTargets when none
// are named.
func (c LoRAConfig) TargetList() []string {
	if len(c.Targets) == 0 {
		return lora.AllTargets
	}
	return c.Targets
}

// Adapts reports whether the projection named module (for example
// "q_proj") carries an adapter.
func (c LoRAConfig) Adapts(module string) bool {
	return slices.Contains(c.TargetList(), module)
}

// Validate checks the rank, dropout and target names.
func (c LoRAConfig) Validate() error {
	if c.R < 2 {
		return fmt.Errorf("validating lora config: r = %d, want at least 2", c.R)
	}
	if c.Dropout < 0 || c.Dropout >= 1 {
		return fmt.Errorf("validating lora config: dropout %g outside [0,1)", c.Dropout)
	}
	for _, t := range c.Targets {
		if !slices.Contains(lora.AllTargets, t) {
			return fmt.Errorf("validating lora config: unknown target module %q (want one of %v)", t, lora.AllTargets)
		}
	}
	return nil
}
