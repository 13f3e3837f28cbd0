// Package train runs the trainer's training loops — Pretrain, TrainSFT,
// TrainRewardModel, TrainDPO and TrainGRPO — on plain-Go inputs, so the
// runner's stage kinds (pretrain, train-sft, train-reward-model,
// train-dpo, train-grpo) only translate their configs and call in.
//
// Layer: trainer. It drives a Network — trainer/net on a compute.Backend
// (the default; a CPU backend unless Options.Backend names another) or
// trainer/autodiff's gorgonia graph (Options.Network "autodiff", kept for
// cross-checks) — and composes trainer/loss, trainer/optim (AdamW on the
// backend), trainer/qwen3 (checkpoints and the KV-cache model used for
// rollouts) and trainer/lora (PEFT adapter IO). It never imports runner;
// the runner sees metrics through Options.OnStep and the artifacts through
// Result.
//
// Every loop follows the same shape: a deterministic batch schedule (the
// examples of optimizer step k and micro-batch j depend only on the seed,
// k and j, so a resumed run sees the same data; bucketed by length, each
// batch padded to its own longest row), GradAccum backward passes whose
// losses are normalised over the whole accumulated batch, one AdamW step
// on the backend with global-norm clipping and the linear schedule, an
// OnStep callback with Metrics, and a checkpoint (trainable parameters +
// float32 optimizer moments) every CheckpointEvery steps. A run whose
// CheckpointDir holds a checkpoint resumes from it. Every pass takes the
// loop's context, so a cancelled run stops within a fraction of a pass.
//
// Choices (ours):
//   - Sequences are right-padded; positions are 0..T-1 per row.
//   - Prompt and completion are encoded separately and concatenated, so the
//     trained tokens are exactly those a sampler would emit after the
//     prompt; an EOS is appended to completions that lack one (TRL appends
//     eos for plain-text data). EncodeScored is that tokenisation, and the
//     runner's reward-model scorer uses it too.
//   - Reward-model pairs longer than MaxLength are dropped (TRL's
//     RewardTrainer), after an optional MaxPromptLength has cut each
//     prompt to its last tokens (ours, as TRL cuts GRPO prompts; the
//     scorer cuts the same way); held-out pairs (EvalPairs) are scored
//     every EvalEvery steps into Metrics.Extra heldout_accuracy and
//     heldout_loss (the training objective on them); DPO sequences and SFT examples keep their first
//     MaxLength tokens (TRL's truncation_mode "keep_start"); pretraining
//     text is one EOS-separated token stream cut into SeqLen chunks.
//   - Pretraining, SFT and DPO score held-out data (EvalTexts,
//     EvalExamples, EvalPairs) without gradients before the first step,
//     on the model as built (before a checkpoint is restored, so a resumed
//     run reports the same starting point), and after the last step.
//   - The reward model and DPO train without LoRA dropout (TRL's
//     disable_dropout=True for both); SFT and GRPO apply it (TRL leaves
//     dropout on there). The differences from TRL that remain are listed
//     in docs/trainer-training.md.
//   - GRPO: one generation batch (BatchSize prompts × GroupSize
//     completions) feeds NumIterations optimizer steps, each over GradAccum
//     micro-batches (TRL's steps_per_generation = gradient_accumulation_steps);
//     checkpoints are written only at generation boundaries. MaxLength
//     bounds prompt + completion: a prompt keeps its last
//     MaxLength − MaxCompletionTokens tokens (TRL cuts prompts from the
//     left), and a rollout function's longer episode its last MaxLength.
//   - GRPO and DPO need LoRA: their reference policy is the base with the
//     adapter disabled (PEFT's disable_adapter), never a second copy.
//   - Rollouts come from the trainer's own KV-cache sampler (trainer/qwen3
//     with the current adapter applied on the fly) unless the job gives a
//     RolloutFunc (endpoint rollouts, director mode).
package train
