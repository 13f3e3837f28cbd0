// Package jsonl is the MASCOT JSONL record: the one type of a conversation
// as the Python original writes it and mascot exports it (Record, with its
// Turns, Directive and Metadata), the schema version, and a lossless codec
// (Encode, Decode: every key of a line survives a round trip, as a JSON
// value).
//
// The dialogue engine (runner/dialogue) produces Records; the store
// (results) keeps them as episode rows whose type embeds Record; import and
// export (results/transfer) move them between files and the store.
//
// Choices:
//   - Encoding writes the schema's keys in the Python original's order and
//     then the keys of Extra sorted, with encoding/json's exact bytes for
//     strings (AppendString) but no reflection for the record's own types.
//   - Decoding takes a fast path (a scanner that reads only the encoder's
//     own form, its spellings included, so that what it reads the encoder
//     writes back byte for byte: decode_canonical.go); any other line is
//     decoded key by key and its extras found by comparing the re-encoded
//     object with the line.
//   - A store's extra objects (a turn's, an episode's) are read and written
//     without reflection where json.Marshal's bytes allow (raw_object.go).
//   - A schema key a record lacks is listed under Extra["$omit"], so a line
//     without, say, a user turn's agent_name is written back without it.
//
// Layer: a leaf. It imports nothing of mascot; runner/dialogue, results and
// results/transfer import it.
package jsonl
