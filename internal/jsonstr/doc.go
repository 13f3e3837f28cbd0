// Package jsonstr reads JSON strings from bytes that a hand-written
// scanner walks: where a string ends, and its escapes decoded.
//
// Layer: internal, a leaf; it imports only the standard library. The llm
// client's reply scanner and the MASCOT JSONL reader's scanner of exported
// lines both read strings this way, one definition for both.
//
// Choices:
//   - A string is refused where json.Unmarshal would refuse it (a control
//     character, a malformed escape) and where it would change it (a \u
//     escape of a surrogate, which it pairs or replaces): the callers then
//     take the general decoder's path, which decides.
//   - Generic over string and []byte, so that a scanner of either reads
//     without copying.
package jsonstr
