// Package reward holds the reward functions GRPO optimises: a reward
// model's score and an LLM judge (both callbacks supplied by the caller),
// a format reward, a conciseness reward, and their weighted sum.
//
// Layer: trainer. It imports only the standard library; the runner wires
// reward models (trainer/qwen3 Score or a served model) and judge plugins
// in as callbacks.
//
// Definitions (our choice — MASCOT does not pin these down):
//
// Format reward. A completion earns the mean of four checks, so the
// reward lies in {0, 0.25, 0.5, 0.75, 1}:
//  1. it is not empty after trimming white space;
//  2. it contains no chat-template or reasoning residue: none of
//     "<|im_start|>", "<|im_end|>", "<|endoftext|>", "<think>", "</think>";
//  3. it does not open with a speaker label such as "Assistant:" or
//     "Alex:" (a single word of letters followed by a colon);
//  4. it ends a sentence: its last non-space character is one of
//     . ! ? … " ' ) or a CJK full stop 。！？.
//     With FormatOptions.Pattern set, the reward is instead 1 when the whole
//     completion matches the pattern and 0 otherwise.
//
// Conciseness reward. With n the number of white-space separated words and
// target the desired length, the reward is 1 for n ≤ target, falls
// linearly to 0 at n = 2·target, and is 0 beyond; an empty completion
// earns 0. An optional minimum m (ConcisenessWithin) makes a completion
// shorter than m words earn n/m: a one-word reply is not concise, it says
// nothing.
//
// Judge reward. The judge returns a score on its own scale [Lo, Hi]; the
// reward maps it linearly to [0, 1] and clamps.
//
// Weighted sum. Σ w_k·r_k over the components, skipping components that
// abstain (ErrAbstain), like TRL's nansum; when every component abstains
// the result is NaN, which GRPO turns into a zero advantage.
package reward
