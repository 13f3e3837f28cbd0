package autodiff

import (
	"fmt"
	"math"
	"slices"

	"mascot.dev/mascot/trainer/lora"
)

// AllTargets lists every projection LoRA can adapt in a Qwen3 decoder
// layer, in PEFT's module-name spelling.
var AllTargets = []string{"q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"}

// LoRAConfig describes the low-rank adapters added to the frozen base
// projections: y = W·x + scaling·B·(A·dropout(x)).
type LoRAConfig struct {
	// R is the adapter rank (PEFT "r"); it must be at least 2 because the
	// graph multiplies matrices, and gorgonia treats an [n,1] matrix as a vector.
	R int
	// Alpha is PEFT's lora_alpha.
	Alpha float64
	// UseRSLoRA selects scaling alpha/sqrt(r) instead of alpha/r.
	UseRSLoRA bool
	// Dropout is the probability of zeroing an input of the LoRA branch
	// while training (lora_dropout); 0 disables it.
	Dropout float64
	// Targets names the adapted projections (a subset of AllTargets);
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

// TargetList returns the adapted projections, AllTargets when none are named.
func (c LoRAConfig) TargetList() []string {
	if len(c.Targets) == 0 {
		return AllTargets
	}
	return c.Targets
}

// Targets reports whether the projection named module (for example
// "q_proj") carries an adapter.
func (c LoRAConfig) targets(module string) bool {
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
		if !slices.Contains(AllTargets, t) {
			return fmt.Errorf("validating lora config: unknown target module %q (want one of %v)", t, AllTargets)
		}
	}
	return nil
}

// modulePath returns the Hugging Face module path of projection proj in
// layer i, for example "model.layers.3.mlp.up_proj".
func modulePath(i int, proj string) string {
	switch proj {
	case "gate_proj", "up_proj", "down_proj":
		return fmt.Sprintf("model.layers.%d.mlp.%s", i, proj)
	default:
		return fmt.Sprintf("model.layers.%d.self_attn.%s", i, proj)
	}
}

// PEFTPrefix is what PEFT puts before a Hugging Face module path in
// adapter_model.safetensors keys.
const PEFTPrefix = lora.Prefix

// LoRAKeyA returns the PEFT key of the A matrix of a module path.
func LoRAKeyA(module string) string { return lora.ModuleKey(module, "A") }

// LoRAKeyB returns the PEFT key of the B matrix of a module path.
func LoRAKeyB(module string) string { return lora.ModuleKey(module, "B") }
