// Package qwen3 holds the Qwen3 dense architecture shared by the whole
// trainer: its config.json, its named weights (Hugging Face key names), the
// plain-Go reference forward that the gorgonia graph is checked against,
// and the fast KV-cache decoder the sampler and the built-in engine use.
//
// Layer: trainer. It imports only trainer/safetensors and gonum; nothing
// from runner.
//
// Choices:
//   - Everything is float32 (checkpoints in BF16/F16 are widened on load);
//     RMSNorm accumulates its mean square in float64.
//   - Hidden/Forward is the reference: one sequence at positions 0..T−1,
//     written step by step as modeling_qwen3.py (docs/design/qwen3.md, "Forward"). The cache
//     decoder (Prefill, Step, StepBatch) is separate code; tests hold the two
//     within 1e-4.
//   - Matmuls go through gonum's blas32: Sgemm for several rows (gonum
//     parallelises it), a row-split parallel Sgemv for one row.
//   - LoRA adapters are applied on the fly through the Adapter interface
//     (WithAdapters returns a view sharing the base weights), so one base
//     can serve several adapters; merging lives in trainer/lora.
//   - A sequence-classification config (architectures
//     ["Qwen3ForSequenceClassification"]) has score.weight instead of
//     lm_head; Score pools at the last non-pad token.
package qwen3
