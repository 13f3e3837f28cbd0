package jsonl

import (
	"encoding/json"
	"slices"
	"strings"
)

// The store keeps a turn's and an episode's extra keys as one JSON object
// of verbatim values. An export reads one per user turn the dialogue engine
// wrote and an import writes one, so both ways skip encoding/json's
// reflection for the objects it would handle byte for byte the same.

// AppendRawObject appends the JSON object of m as json.Marshal writes a
// map[string]json.RawMessage: keys sorted and HTML-safe, values compacted
// with <, > and & escaped. It returns false, having appended nothing, for a
// value whose compact HTML-safe form is not its own bytes or that may not
// be valid (empty, or holding whitespace, <, >, &, U+2028 or U+2029):
// json.Marshal decides those, and reports the invalid ones.
func AppendRawObject(dst []byte, m map[string]json.RawMessage) ([]byte, bool) {
	var keyBuf [8]string
	keys := keyBuf[:0]
	for k, v := range m {
		if !plainRaw(v) {
			return dst, false
		}
		keys = append(keys, k)
	}
	slices.Sort(keys)
	n := len(dst)
	dst = append(dst, '{')
	for i, k := range keys {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(AppendString(dst, k), ':')
		dst = append(dst, m[k]...)
	}
	dst = append(dst, '}')
	if !json.Valid(dst[n:]) {
		return dst[:n], false
	}
	return dst, true
}

// plainRaw says whether v is non-empty, has no whitespace between its
// tokens and holds none of the characters HTML-escaping rewrites: the
// bytes compacting with HTML escapes would leave as they are.
func plainRaw(v json.RawMessage) bool {
	if len(v) == 0 || spaced(v) {
		return false
	}
	for _, c := range v {
		if c == '<' || c == '>' || c == '&' || c == 0xE2 { // 0xE2 leads U+2028 and U+2029
			return false
		}
	}
	return true
}

// spaced says whether the JSON text v has whitespace between its tokens
// (what compacting removes).
func spaced[T ~string | ~[]byte](v T) bool {
	in := false
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case in && c == '\\':
			i++
		case c == '"':
			in = !in
		case !in && (c == ' ' || c == '\t' || c == '\n' || c == '\r'):
			return true
		}
	}
	return false
}

// DecodeRawObject reads a JSON object of any values into keys and verbatim
// values, as json.Unmarshal into a map[string]json.RawMessage does, for
// the compact objects AppendRawObject and json.Marshal write. It returns
// false for anything else (whitespace between tokens, a repeated key, an
// invalid value, not an object), which json.Unmarshal then reads.
func DecodeRawObject(s string) (map[string]json.RawMessage, bool) {
	c := canonScanner{s: s}
	if !c.lit(`{`) {
		return nil, false
	}
	m := make(map[string]json.RawMessage, strings.Count(s, `":`))
	if c.lit(`}`) {
		return m, c.i == len(s)
	}
	for {
		if _, ok := c.member(&m); !ok {
			return nil, false
		}
		if c.lit(`}`) {
			return m, c.i == len(s)
		}
		if !c.lit(`,`) {
			return nil, false
		}
	}
}
