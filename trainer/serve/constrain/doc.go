// Package constrain turns a JSON schema into a byte-level state machine and
// masks the tokens of a vocabulary that cannot continue a document valid
// against the schema, so that constrained decoding always ends in JSON that
// parses and validates.
//
// Layer: trainer/serve helper. It knows bytes and token spellings, nothing
// about models or HTTP.
//
// Choices:
//   - The machine works on bytes, so one machine serves byte-level demo
//     tokenizers (every token is one byte) and BPE vocabularies (a token is
//     allowed when all its bytes are accepted; the vocabulary is a byte trie,
//     so a whole subtree is pruned at the first rejected byte).
//   - Output is compact JSON: no whitespace between tokens; object
//     properties come in schema order (optional ones may be skipped);
//     string escapes are limited to \" \\ \/ \b \f \n \r \t (no \u); numbers
//     have no exponent and at most 15 integer and 15 fraction digits.
//   - Every state knows the fewest bytes that complete the document (Rest).
//     Byte-level BPE vocabularies hold every single byte, so bytes bound
//     tokens: the masker only admits tokens that leave the document
//     completable within the remaining token budget, so a random model
//     still closes its JSON before max_tokens.
//
// Supported schema subset (anything else is an error naming the keyword):
// type object (properties, required; additionalProperties is accepted and
// treated as false), array (items, minItems, maxItems), string (minLength,
// maxLength; format is ignored), integer (minimum, maximum, exclusiveMinimum,
// exclusiveMaximum), number (bounds rejected), boolean, null, enum and const
// of strings, numbers, booleans and null. Annotations (title, description,
// default, examples, $schema, strict) are ignored.
package constrain
