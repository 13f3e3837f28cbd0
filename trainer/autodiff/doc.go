//go:build !cuda

// Package autodiff is the Qwen3 dense forward (docs/design/qwen3.md) as a
// gorgonia v0.9.18 graph, with LoRA adapters on any of the seven
// projections and an optional sequence-classification score head, and its
// backward pass for training.
//
// Role: the cross-check. The trainer's default network is trainer/net (the
// same model over a compute.Backend, with memory that scales with the
// model); this graph is the path verified against torch float64 and
// finite differences, trainer/net's tests hold net to it within 1e-4, and
// trainer/train still runs on it with Options.Network "autodiff". Both
// satisfy train.Network through trainer/pass's types: Backend and
// TrainParams expose the float32 parameters and gradients to the
// trainer's backend optimizer as tensors of a CPU backend aliasing the
// graph's own slices.
//
// Layer: trainer. It builds on trainer/qwen3's Config and Weights (Hugging
// Face names and layouts in, Hugging Face/PEFT names and layouts out) and
// knows nothing about losses: trainer/loss computes objectives and their
// derivatives, trainer/train runs the loops.
//
// # Graph
//
// A Model compiles one graph per (batch, length, forward|backward) shape
// and keeps up to MaxGraphs of them, dropping graphs of other shapes once
// their batch tokens pass MaxCachedTokens (a graph holds its last pass's
// activations). Rows are right-padded to T, flattened
// to N = B·T tokens, and run through: embedding gather → per layer
// RMSNorm, q/k/v projections (+LoRA), per-head q_norm/k_norm, rotate-half
// RoPE (a constant [d,d] permutation matrix plus cos/sin tables), attention
// per (batch, kv head) with the H/K query heads of a group stacked (GQA
// without copying kv heads), d^-0.5 scaling, then one fused causal
// attention op (attention.go: keys past the position or the row's length
// are skipped, the softmax keeps one log-sum-exp per query row and the
// backward recomputes the probabilities, so no [T, T] matrix is ever
// stored and memory grows with T, not T²), o projection, residual, RMSNorm, SwiGLU MLP (+LoRA), residual →
// final RMSNorm → tied or separate LM head → one fused op (lmhead.go) for
// log softmax(logits/temperature)[next token], which keeps one
// log-sum-exp per position instead of [N, V] scaled logits, log-softmax
// and their gradients; or,
// for reward models, the score head at every position. LoRA adds
// scaling·((x⊙dropout_mask)·Aᵀ)·Bᵀ where scaling (alpha/r or alpha/√r) is
// a scalar input set to 0 to run the frozen base (PEFT's disable_adapter,
// the reference policy of GRPO's KL and DPO). Dropout masks are inputs drawn
// per row from lora.DropoutSeed with compute.Keep (docs/design/peft.md), so
// a forward and a backward pass share them and trainer/net drops the same
// inputs.
//
// Parameters live in Params, whose dense tensors back the graph nodes of
// every compiled graph: updating Param.F32() in place (the optimizer does)
// changes every graph. Linear weights are stored transposed ([in,out]) so
// the graph multiplies without Transpose nodes; Weights, LoRAWeights and
// MergedWeights convert back. Trainable picks what gets gradients: the
// adapters (policies), adapters + score head (reward models), or all
// weights (pretraining, full fine-tuning).
//
// # Backward: seeded surrogate
//
// Backward differentiates S = Σ seedLogP·LogP + Σ seedScore·Score. For any
// loss L(LogP, Score) whose partial derivatives are the seeds, ∇θS = ∇θL
// by the chain rule, so trainer/loss supplies exact derivatives (checked
// by finite differences) and the graph never contains the branching parts
// of GRPO/DPO/Bradley–Terry. Losses whose seeds depend on the current
// log-probs (GRPO's ratio, DPO) run Forward then Backward with the same
// dropout seed; SFT and pretraining need Backward alone. A loss of the
// score head alone (Bradley–Terry) uses BackwardScores: a ScoreSeed op in
// the tape computes the seeds from the pass's own scores, so one pass does.
// Gradients are added into Param.Grad (float64) and gorgonia's own
// accumulated gradients are zeroed after every run.
//
// # Avoided gorgonia v0.9.18 defects
//
// InverseSqrt's gradient is wrong: RMSNorm uses Pow(·, −0.5). ByIndices on
// a 1-D tensor has a wrong gradient and LogSumExp fails shape inference:
// the fused log-prob op needs neither. Gradients accumulate across RunAll:
// we copy and zero them per run. The TapeMachine is not goroutine-safe, so
// neither is a Model. gorgonia treats [n,1] matrices as vectors, so LoRA
// rank must be ≥ 2 and batches need at least 2 tokens.
//
// Checks: the forward equals a plain float64 reference written in the tests
// and trainer/qwen3's reference (logits and score, with and without LoRA,
// within 1e-4); every layer's gradient matches central differences in
// float64 (Options.Float64).
//
// # BLAS (-tags openblas)
//
// Matrix products run on gonum's pure-Go BLAS by default. Built with
// `-tags openblas` (cgo and libopenblas-dev, apt-get install
// libopenblas-dev), gorgonia runs them on OpenBLAS through gonum's netlib
// binding; TestOpenBLASMatchesGonum checks both paths agree and the
// benchmarks report GFLOP/s for each against that BLAS's sgemm peak.
//
// # GPU
//
// The GPU trainer is trainer/net on trainer/compute/cuda (-tags cuda),
// not this graph: gorgonia's CUDA path needs CUDA's headers at build time,
// the gorgonia.org/cu v0.9.4 it pins fails on CUDA 12, and it has kernels
// for only part of the ops used here. So that the cuda tag never builds
// gorgonia's CUDA path, every file of this package is constrained to
// !cuda: builds with -tags cuda leave the package (and gorgonia) out, and
// trainer/train's autodiff network is then unavailable. go.mod keeps
// gorgonia.org/cu as gorgonia's indirect requirement.
package autodiff
