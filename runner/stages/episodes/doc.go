// Package episodes is the `episodes` stage kind: MASCOT conversations (and
// every baseline system) generated over a dataset.
//
// Modes:
//
//   - independent: one unit per (context, sample index < samples_per_context),
//     each one dialogue.RunEpisode stored as one episode with its turns.
//   - branching: one unit per context, one dialogue.RunBranching tree. Every
//     node is stored as an episode (idx = node id) holding the root-to-node
//     trajectory; the episodes table has no parent column, so the tree links
//     live in the metadata block under "branch" (node, parent, parent
//     episode id, path, round, children, leaf) and a branch point carries the
//     Director prompt its K siblings were drawn from ("director_prompt").
//   - eval: as independent; meant for systems and trained adapters.
//
// Choices:
//
//   - The simulated user's profile is drawn per context from the experiment
//     seed (Big Five via dialogue.RandomBigFive, MBTI from mbti_types), so
//     every system and sample index on a context faces the same user.
//   - ESConv contexts hold the whole recorded dialogue: ContextTurns 1 keeps
//     the seeker's opening line.
//   - few-shot and multiagent-esc draw examples from the dataset's other
//     samples (never the context itself).
//   - Adapters named by speaker_adapter / director_adapter / sft_adapter are
//     loaded once per stage under "<stage>-<first 12 hex of sha256>"; the
//     sha256 is part of every unit's inputs.
//   - Skipped episodes (no agent turn survived) are counted and not stored,
//     so every stored episode has its turns.
//
// Layer: runner/stages.
package episodes
