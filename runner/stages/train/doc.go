// Package train holds the training stage kinds — pretrain,
// train-reward-model, train-grpo, train-dpo and train-sft — and the
// built-in engine (NewEngine) that serves builtin endpoints with
// trainer/serve.
//
// Each training stage is one unit. Its Inputs are the fingerprints of the
// upstream units it reads (pairs, prompts) and the identity of its base
// model (the sha256 of a base_stage artifact, or a base_model path or hub
// id), so a rerun with the same inputs reuses the stored result. The unit
// writes into env.RunDir/<stage>/ and records, in the commit, one
// results.Artifact (kind "model" for pretrain, "reward-model" for merged
// sequence-classification checkpoints, "adapter" for PEFT adapters; SHA256
// hashes the files' sha256s) and one results.TrainingStep per optimizer
// step.
//
// Choices (ours):
//   - pretrain uses the byte-level tokenizer (tokenizer.NewByteLevel) and
//     marks the directory with serve.WriteByteTokenizerMarker, so
//     trainer/serve and the other stages load it without a tokenizer.json.
//   - Prompts of chat data are rendered with the Qwen3 chat template,
//     generation prompt added, thinking disabled.
//   - train-grpo holds out heldout_fraction of its prompts (at least one
//     when there are two or more) and records the mean reward of sampled
//     completions on them before and after training as metrics
//     heldout_reward_before / heldout_reward_after.
//   - train-grpo with policy director is trajectory GRPO (director*.go,
//     docs/design/director-grpo.md): its states are conversation prefixes
//     of an episodes stage, each rollout is played through that stage's
//     dialogue engine (episodes.Setting, dialogue.RunRollouts) with the
//     Director's requests answered by the policy (policyChat), and the
//     reward scores the whole transcript with the group pairs' template
//     (stagekit.Transcript).
//
// Layer: runner/stages. It translates configs into trainer/train jobs and
// never touches the gorgonia graph itself; it reads the episodes stage's
// setting (runner/stages/episodes) to continue its conversations.
package train
