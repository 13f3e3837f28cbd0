// Package dialogue is the MASCOT dialogue engine: the Director, the persona
// Speakers, the simulated User, the ablated systems (mascot-p, mascot-c) and
// every baseline the paper compares against (zero-shot, zero-shot-cot,
// few-shot, few-shot-cot, sft, self-consistency, multiagent-esc).
//
// # Layer
//
// It sits under runner/stages (which turns its output into stored units) and
// over llm, which it reaches only through the Chatter interface defined
// here. It never sees dataset formats (only datasets.Sample) and never does
// I/O itself, so every behaviour is testable with a scripted Chatter.
//
// # Entry points
//
//   - RunEpisode: one independent episode of Config.Turns rounds.
//   - RunBranching: a tree of episodes with K candidate directives at each
//     branch point, parent links and sibling groups for Director DPO/GRPO.
//   - GenerateCandidates: K Speaker responses per (context, persona).
//   - RunRollouts: K continuations of a stored conversation prefix, each
//     from its own first directive, for a horizon of rounds (the
//     Director's trajectory GRPO).
//
// # Choices (not fixed by the paper)
//
//   - A round is Director -> Speaker (-> User). Config.Turns counts rounds,
//     so an episode has Turns agent turns plus the user turns the coin allowed.
//     turn_idx and round_id are 0-based; turns[] holds only generated turns
//     (the dataset context is the prompt, not part of turns[]).
//   - Determinism: every random decision (fallback agent, mascot-c order,
//     user reply coin, profile draw, few-shot choice) and every request seed is
//     derived by hashing Config.Seed, the unit key and the call's position, so
//     results do not depend on call order and a rerun replays exactly.
//     CacheKey is "unit|role|step|r<round>|b<branch path>|s<sample index>".
//   - The user reply coin depends on the round only, not on the branch, so
//     sibling branches face the same user behaviour and stay comparable.
//   - Directive parsing: JSON first (the request carries a JSON schema whose
//     agent field is an enum of the roster), then a tolerant scan for
//     Agent:/Action:/Tone: markers. Names match after case folding, dropping a
//     leading "The" and punctuation; a value naming exactly one roster agent
//     also matches. A directive with no agent at all is a parse failure; a
//     named agent outside the roster is unknown. Both fall back to a seeded
//     random agent: num_directive_parse_failures counts the first kind,
//     num_random_agent_fallbacks counts every random substitution (parse
//     failures, unknown agents and failed Director calls).
//   - Emotion tracking: the User model answers structured JSON
//     {"emotion": one word, "reply": text}. initial_emotion is the dataset's
//     emotion label (or "unknown"); each user turn appends its stated emotion
//     (or keeps the previous one when it states none) to emotion_trajectory;
//     final_emotion is the last entry. Long dataset contexts can be
//     trimmed with Config.ContextTurns (ESConv samples hold the whole dialogue).
//   - mascot-p gives speakers a generic prompt (their name, no persona card);
//     the paper's ablation removes Stage 1 training, which is reproduced by
//     pointing Speaker.Model at the base model with system "mascot".
//   - mascot-c still calls the Director (for Action and Tone) but replaces
//     its agent choice with a seeded random agent.
//   - self-consistency samples M chain-of-thought answers and keeps the one
//     with the highest mean unigram F1 against the others (lowest index wins
//     ties).
//   - multiagent-esc: three analysis calls (emotion, cause, intention), D
//     deliberators proposing one of the 8 ESConv strategies with BM25
//     retrieval of similar examples, one response per distinct proposed
//     strategy, a debate vote by the deliberators, a tie-break call when the
//     vote ties (role ESC.TieBreakRole, "speaker" by default so evaluation
//     judges stay separate; set "judge" to use the judge endpoint), and a
//     self-reflection call that may revise the winner.
//   - Tolerant by default: failures are counted in Counters and the episode
//     continues; Config.Strict returns the first error instead. A failed or
//     empty Speaker turn is not recorded. An episode that produced no agent
//     turn at all, or whose sample has no usable context, is marked Skipped
//     and counts num_skipped_samples.
package dialogue
