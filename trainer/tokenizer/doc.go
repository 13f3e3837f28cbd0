// Package tokenizer turns text into Qwen3 token ids and back, and renders
// the Qwen3 chat template, without any third-party tokenizer library.
//
// Layer: trainer leaf. The model, sampler and stage kinds above it see only
// *Tokenizer, Message and ApplyChatTemplate; nothing here knows about
// tensors.
//
// What it implements, and the choices made:
//
//   - Hugging Face tokenizer.json files holding a byte-level BPE model (the
//     Qwen2/Qwen3 family): NFC normalizer, added tokens split out of the raw
//     text before anything else (leftmost-longest, honouring single_word,
//     lstrip, rstrip and normalized as the tokenizers crate does), the Qwen2
//     Split pre-tokenizer, the ByteLevel alphabet, BPE merges in either
//     serialisation ("a b" strings or ["a","b"] pairs). Other pre-tokenizers,
//     byte fallback and continuing-subword prefixes are rejected at load time
//     with an error naming the field, never silently approximated.
//   - The Qwen2 pre-tokenizer regex is written by hand as a scanner
//     (pretokenize.go) because Go's regexp has no lookahead; `\s+(?!\S)` is
//     exact. Character classes follow the Rust engine that vLLM and
//     transformers use: \s is the Unicode White_Space property and the
//     contraction group is Unicode case-insensitive (so "'ſ" matches "'s").
//     The JavaScript oracle used in the conformance test differs on exactly
//     these two points (U+0085, U+FEFF, U+017F), which is documented in the
//     test and kept out of its generated strings.
//   - BPE merges the lowest-ranked adjacent pair first, leftmost on ties, the
//     order the tokenizers crate uses. Pre-token words are cached per
//     Tokenizer (bounded, safe for concurrent use).
//   - Decode maps byte-level characters back to bytes and repairs invalid
//     UTF-8 with one U+FFFD per maximal invalid subpart (Python's
//     errors="replace", Rust's from_utf8_lossy). Added tokens decode to their
//     content verbatim.
//   - NewByteLevel builds the demo tokenizer for tiny models: 256 byte tokens
//     (id = byte value) plus the 26 Qwen3 added tokens at ids 256–281, no
//     merges and no normalizer, so any byte string round-trips exactly and
//     the Qwen3 chat template works unchanged. Save writes any Tokenizer as a
//     tokenizer.json that Hugging Face tokenizers can load.
//   - ApplyChatTemplate renders the Qwen3 hybrid-thinking chat template (the
//     one shipped with Qwen3-0.6B/8B) in Go: system, user, assistant and tool
//     messages, tools, tool calls, reasoning_content, add_generation_prompt and
//     enable_thinking. It is checked byte for byte against a Jinja rendering
//     of the real template in conformance_test.go.
package tokenizer
