// Package lora holds LoRA adapters for trainer/qwen3 in PEFT's on-disk
// format (docs/design/peft.md), so that adapters we train load unchanged into PEFT
// and vLLM (--lora-modules, /v1/load_lora_adapter).
//
// Layer: trainer, above qwen3 and safetensors. The gorgonia training graph
// (trainer/autodiff, trainer/train) reads A and B from an Adapter and writes
// them back; serving applies an Adapter on the fly through
// qwen3.Model.WithAdapters (Adapter implements qwen3.Adapter).
//
// Choices:
//   - Weights are keyed by PEFT's saved names,
//     base_model.model.model.layers.{i}.{self_attn|mlp}.{proj}.lora_{A|B}.weight,
//     with A [r, in] and B [out, r]; KeyShapes lists them from a config
//     without allocating.
//   - Init follows PEFT's init_lora_weights=true: A ~ U(−1/√in, 1/√in)
//     (kaiming_uniform_ with a=√5), B = 0, so a new adapter is a no-op.
//   - scaling = lora_alpha/r, or lora_alpha/√r with use_rslora.
//   - Only what vLLM serves is accepted: bias "none", no DoRA, no
//     modules_to_save, no rank/alpha patterns, no layers_to_transform.
//   - Reward models are shipped as merged Qwen3ForSequenceClassification
//     checkpoints (trainer/train.TrainRewardModel folds the adapter in),
//     because vLLM rejects modules_to_save.
package lora
