// Package net is the Qwen3 dense network (docs/design/qwen3.md) over a
// compute.Backend: the frozen base stored once on the backend (BF16 or
// F32), LoRA adapters with PEFT semantics on any of the seven projections
// (docs/design/peft.md), the sequence-classification score head, and the
// forward and backward passes the training loops of trainer/train drive
// through the pass contract.
//
// Layer: trainer. It imports trainer/compute (the ops), trainer/pass (the
// contract), trainer/qwen3 (config, weights, RoPE tables), trainer/lora
// (PEFT keys, init and dropout seeds) and trainer/safetensors (loading
// without a float32 copy). trainer/train consumes it; nothing below
// imports it.
//
// # Memory
//
// Nothing is compiled per shape. A pass splits its rows into groups of at
// most ChunkTokens tokens (rows sorted by length, each group padded to its
// own longest row), and every per-token op works on one group, so scratch
// is bounded by the group, not the batch. Buffers are named, sized to the
// largest request seen, and reused by later passes. A training pass
// stores each layer's input only (gradient checkpointing) and recomputes
// the layer in backward; KeepActivations keeps every layer's activations
// instead when they fit. When the seeds are known before the pass
// (Backward), each group runs forward and backward in turn, so the store
// holds one group; when they depend on the pass's own scores
// (BackwardScores), every group's layer inputs are stored first. The LM
// head runs only at the positions whose log-prob is wanted, gathered into
// a compact block and cut into row chunks; the score head only at the
// pooled positions. docs/design/trainer-compute.md gives the byte counts.
//
// # Determinism and cancellation
//
// Groups and ops run in a fixed order, so with a backend whose ops are
// deterministic (compute's contract) two identical passes give identical
// bits. The context is checked between ops, so a pass over a
// Qwen3-0.6B-shaped model stops within about a second of cancellation.
package net
