// Package markers is the built-in deterministic judge served by `mascot
// plugin serve markers`. It calls no model: every score is a count over
// the words of the judged text, so the same item always gets the same
// scores, and their differences are signals a small reward model can
// learn (the offline demo trains its persona and group reward models on
// them).
//
// Per-agent criteria (candidates and turns), each on a continuous 1–5
// scale: persona_markers (how many of the speaking agent's marker words
// the response uses: the words of its persona card, or those the config
// lists), directive_compliance (the Director's named agent spoke, and the
// response uses the words of the directive's action and tone; only items
// whose directive is known), non_redundancy (the share of the response's
// content words that repeat a word of the response or of the earlier
// turns) and well_formed (the share of word fragments: single letters
// other than "a", "i" and "o", and tokens without a vowel). Collective
// criteria (episodes) average the per-agent ones over the agent turns,
// each turn measured against the turns before it, and add participation:
// how many of the companions spoke.
//
// Layer: plugin side (uses plugins/sdk); builtin registers it.
package markers
