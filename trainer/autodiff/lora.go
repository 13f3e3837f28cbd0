//go:build !cuda

package autodiff

import (
	"fmt"

	"mascot.dev/mascot/trainer/lora"
	"mascot.dev/mascot/trainer/pass"
)

// AllTargets lists every projection LoRA can adapt in a Qwen3 decoder
// layer, in PEFT's module-name spelling.
var AllTargets = lora.AllTargets

// LoRAConfig describes the low-rank adapters (shared with trainer/net).
type LoRAConfig = pass.LoRAConfig

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
