package train

import (
	"mascot.dev/mascot/trainer/compute"
	"mascot.dev/mascot/trainer/optim"
	"mascot.dev/mascot/trainer/pass"
	"mascot.dev/mascot/trainer/qwen3"
)

// Tokenizer is what the loops need from a tokenizer. Chat prompts arrive
// already rendered (chat template applied by the caller).
type Tokenizer interface {
	Encode(text string) []int
	Decode(ids []int) string
	EOS() int
	Pad() int
}

// Options are the settings every loop shares.
type Options struct {
	// Steps is the number of optimizer steps.
	Steps int
	// BatchSize is the number of examples (texts, pairs, prompts) per micro-batch.
	BatchSize int
	// GradAccum is the number of micro-batches per optimizer step (default 1).
	GradAccum int
	// Optim holds AdamW, clipping and schedule settings; TotalSteps
	// defaults to Steps (linear decay to 0 at the end).
	Optim optim.Config
	// LoRA adapts the base; nil trains every weight where the loop allows it.
	LoRA *pass.LoRAConfig
	// InitAdapter, when set, starts the adapter from these PEFT tensors
	// (lora.Adapter.Weights, e.g. GRPO after SFT) instead of PEFT's init;
	// its rank and targets must match LoRA.
	InitAdapter qwen3.Weights
	// MaxLength caps sequence length in tokens (0 = no cap).
	MaxLength int
	// Seed drives initialisation, data order, dropout and sampling.
	Seed uint64
	// OutputDir receives the adapter or model directory.
	OutputDir string
	// BaseModelName goes into adapter_config.json base_model_name_or_path:
	// the base's Hugging Face id, or its local directory, so that PEFT's
	// AutoPeftModel can resolve it.
	BaseModelName string
	// BaseRevision, when set, goes into adapter_config.json revision.
	BaseRevision string
	// BaseFingerprint, when set, is written to lora.MetaFile beside the
	// adapter (the runner's identity of the base, e.g. "stage:<sha256>").
	BaseFingerprint string
	// CheckpointDir, when set, holds the resumable training state.
	CheckpointDir string
	// CheckpointEvery writes a checkpoint every so many steps (default 10
	// when CheckpointDir is set).
	CheckpointEvery int
	// OnStep receives every step's metrics.
	OnStep func(Metrics)
	// Network picks the network: NetworkNet (default, trainer/net on
	// Backend) or NetworkAutodiff (the gorgonia graph, for cross-checks).
	Network string
	// Backend runs the network (trainer/net) and the optimizer; nil opens
	// a CPU backend (cpu.New with Threads).
	Backend compute.Backend
	// Threads is the CPU backend's thread count when Backend is nil (0:
	// GOMAXPROCS). Training is bit-for-bit reproducible for a given count.
	Threads int
	// BaseDType stores the frozen base as compute.F32 or compute.BF16 (0:
	// as the source has it; see net.Options.BaseDType).
	BaseDType compute.DType
	// KeepActivations keeps activations instead of recomputing each layer
	// in backward (net.Options.KeepActivations); ChunkTokens bounds a row
	// group (net.Options.ChunkTokens).
	KeepActivations bool
	ChunkTokens     int
}

// The networks Options.Network names.
const (
	NetworkNet      = "net"
	NetworkAutodiff = "autodiff"
)

// Metrics describe one optimizer step.
type Metrics struct {
	Step int
	// Loss is the objective of the step (summed over micro-batches).
	Loss float64
	// RewardMean and RewardStd are over the step's completions (GRPO) or
	// pairs' chosen rewards (reward model).
	RewardMean, RewardStd float64
	// KL is the mean k3 KL to the reference (GRPO with beta ≠ 0).
	KL float64
	// ClipFraction is GRPO's clipped-token fraction.
	ClipFraction float64
	// GradNorm is the global gradient norm before clipping.
	GradNorm float64
	// LR is the learning rate of the step.
	LR float64
	// Tokens counts the tokens the step's passes processed; TokensPerSec
	// divides them by the step's wall time.
	Tokens       int
	TokensPerSec float64
	// HardwareFLOPs and ModelFLOPs count the step's floating-point work as
	// trainer/net does (net.Counters: issued, recompute included; and what
	// the mathematics needs); 0 on the autodiff network.
	HardwareFLOPs, ModelFLOPs float64
	// Extra holds loop-specific values (accuracy, margin, ...).
	Extra map[string]float64
}

// Result describes a finished run.
type Result struct {
	// Dir is the output directory; Kind is "adapter" (PEFT) or "model"
	// (a Hugging Face checkpoint directory).
	Dir, Kind string
	// Files maps each written file name (relative to Dir) to its sha256 (hex).
	Files map[string]string
	// Steps is the number of optimizer steps completed; ResumedFrom the
	// step a checkpoint restored (0 for a fresh run).
	Steps, ResumedFrom int
	// History holds every step's metrics of this process.
	History []Metrics
	// Eval holds end-of-run evaluation numbers (for example held-out accuracy).
	Eval map[string]float64
}

// Pair is a preference pair; Prompt is rendered text, Chosen and Rejected
// the two completions. Margin is the optional Bradley–Terry margin.
type Pair struct {
	Prompt, Chosen, Rejected string
	Margin                   float64
}

// Example is an SFT example: a rendered prompt and its target completion.
type Example struct {
	Prompt, Completion string
}
