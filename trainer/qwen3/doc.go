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
//     written step by step as modeling_qwen3.py (docs/design/qwen3.md,
//     "Forward"). The cache decoder (Extend, and Prefill, Step, StepBatch on
//     top of it) is separate code; tests hold the two within 1e-4.
//   - Extend runs any mix of sequences in one pass over the weights: a
//     decoding sequence's one token, a block of a prompt being prefilled,
//     rows of several adapter views of one base. Every row's logits are
//     bit-identical whatever else is in the pass and however its prompt
//     was cut into blocks (docs/design/batch-invariance.md).
//   - Matrix products (matmul.go) compute each output as one dot product
//     in a fixed order that depends only on the inner size and the CPU:
//     AVX-512 assembly kernels (dotz_amd64.s, dot8z_amd64.s) for inner
//     sizes that are multiples of 16, AVX2/FMA ones (dot_amd64.s) for
//     multiples of 8, a portable Go loop otherwise. The outputs are split
//     over the CPUs; the inner dimension never is. The kernels read the
//     weight rows as long streams, prefetched ahead. Attention uses
//     gonum's blas32 per (sequence, head).
//   - LoRA adapters are applied on the fly through the Adapter interface
//     (WithAdapters returns a view sharing the base weights), so one base
//     can serve several adapters; merging lives in trainer/lora.
//   - A sequence-classification config (architectures
//     ["Qwen3ForSequenceClassification"]) has score.weight instead of
//     lm_head; Score pools at the last non-pad token.
package qwen3
