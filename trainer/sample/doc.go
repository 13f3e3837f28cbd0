// Package sample draws completions from a qwen3.Model through its KV-cache
// decoder: temperature, top-k, top-p, seed, stop tokens, a token budget, and
// a logits-processor hook for constrained decoding.
//
// Layer: trainer, above qwen3. GRPO rollouts and the built-in
// OpenAI-compatible engine call it; the engine passes n>1 as GenerateN,
// which prefills the prompt once and decodes the n sequences as one batch.
//
// Per step: logits → Processor hook (may set entries to −Inf) → divide by
// the temperature → log-softmax. The reported log-prob of the chosen token
// is taken from that distribution, BEFORE top-k/top-p truncation: it is
// what TRL recomputes in training (logits/T, log-softmax, gather), so the
// GRPO ratio starts at exactly 1 when the policy has not moved. vLLM's
// "processed_logprobs" also applies temperature; our value differs from it
// only when top-k/top-p cut the distribution. With temperature 0 (greedy)
// the log-prob is of the raw logits (T = 1).
//
// Top-k keeps the k most likely tokens; top-p then keeps the smallest
// most-likely-first prefix whose mass, renormalised over the top-k
// survivors as HF's and vLLM's warpers do, reaches p (at least one token); the
// kept probabilities are renormalised and one token is drawn with a PCG
// stream seeded by (Seed, sequence index), so the same seed gives the same
// tokens. A stop token ends its sequence and is included in Tokens (TRL
// keeps the EOS in the completion mask).
package sample
