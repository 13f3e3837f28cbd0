// Package pass is the contract between a trainable Qwen3 network and the
// training loops: one pass's batch, options and outputs, the LoRA and
// trainable-set settings, and the parameters an optimizer updates.
//
// Layer: trainer. Two networks implement it — trainer/net (the Qwen3
// network over a compute.Backend, the default) and trainer/autodiff (the
// gorgonia graph, kept for cross-checks) — and trainer/train drives either
// through its Network interface. The package holds types only; it imports
// trainer/compute for the tensors of Param and trainer/lora for PEFT's
// module names.
package pass
