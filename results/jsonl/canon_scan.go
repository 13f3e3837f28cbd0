package jsonl

import (
	"encoding/binary"
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The canonical scanner's primitives: integers and strings in exactly the
// form the encoder writes them (appendJSONInt, AppendString), and verbatim
// values, which it validates. Each primitive refuses any other spelling,
// so that a record the scanner reads is one Append writes back byte for
// byte, without encoding it again to compare (docs/benchmarks.md has
// what that second encoding cost an import).

// int reads an integer spelled as appendJSONInt spells it: no leading
// zero, no "-0", no sign but a minus.
func (c *canonScanner) int(dst *int) bool {
	j := c.i
	if j < len(c.s) && c.s[j] == '-' {
		j++
	}
	for j < len(c.s) && c.s[j] >= '0' && c.s[j] <= '9' {
		j++
	}
	n, err := strconv.Atoi(c.s[c.i:j])
	if err != nil {
		return false
	}
	var buf [24]byte
	if string(appendJSONInt(buf[:0], n)) != c.s[c.i:j] {
		return false
	}
	*dst, c.i = n, j
	return true
}

// str reads a string spelled as AppendString spells it: a slice of the
// line when it has no escape.
func (c *canonScanner) str(dst *string) bool {
	if !c.lit(`"`) {
		return false
	}
	end, escaped, ok := plainStringEnd(c.s, c.i)
	if !ok {
		return false
	}
	if !escaped {
		*dst, c.i = c.s[c.i:end], end+1
		return true
	}
	if end, ok = StringEnd(c.s, c.i); !ok {
		return false
	}
	v, ok := UnescapeString(c.s[c.i:end])
	if !ok || !c.spelled(v, c.s[c.i-1:end+1]) {
		return false
	}
	*dst, c.i = v, end+1
	return true
}

// spelled says whether AppendString writes v as quoted, for a string with
// escapes (few: the plain ones are checked as they are read).
func (c *canonScanner) spelled(v, quoted string) bool {
	c.buf = AppendString(c.buf[:0], v)
	return string(c.buf) == quoted
}

// plainStringEnd finds the closing quote of the string whose first byte
// (after its opening quote) is s[i], reading only bytes AppendString
// writes as they are: escaped is true (and end where the first backslash
// is) when the string has an escape, ok false at a byte AppendString
// would have escaped (a control byte, <, >, &, invalid UTF-8, U+2028 or
// U+2029) or at the end of s.
func plainStringEnd(s string, i int) (end int, escaped, ok bool) {
	for i < len(s) {
		for i+8 <= len(s) && plainWord(binary.LittleEndian.Uint64([]byte(s[i:i+8]))) {
			i += 8
		}
		if i == len(s) {
			break
		}
		switch c := s[i]; {
		case c == '"':
			return i, false, true
		case c == '\\':
			return i, true, true
		case c < utf8.RuneSelf:
			if !plainJSON[c] {
				return 0, false, false
			}
			i++
		default:
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 || r == '\u2028' || r == '\u2029' {
				return 0, false, false
			}
			i += size
		}
	}
	return 0, false, false
}

// raw reads one JSON value verbatim (nil when it is not valid JSON): the
// encoder writes it back as it is, so it is validated here.
func (c *canonScanner) raw() json.RawMessage {
	end, ok := skipValue(c.s, c.i, 0)
	if !ok || !json.Valid([]byte(c.s[c.i:end])) {
		return nil
	}
	v := json.RawMessage(c.s[c.i:end])
	c.i = end
	return v
}

// skipValue returns where the JSON value at s[i] ends, finding the ends of
// strings and the closing brackets only; json.Valid judges the rest.
func skipValue(s string, i, depth int) (int, bool) {
	if i >= len(s) || depth > 64 {
		return 0, false
	}
	switch s[i] {
	case '"':
		end, ok := StringEnd(s, i+1)
		return end + 1, ok
	case '[', '{':
		j := i + 1
		for j < len(s) {
			switch s[j] {
			case ']', '}':
				return j + 1, true
			case ',', ':', ' ', '\t', '\n', '\r':
				j++
			default:
				var ok bool
				if j, ok = skipValue(s, j, depth+1); !ok {
					return 0, false
				}
			}
		}
		return 0, false
	}
	j := i
	for j < len(s) && strings.IndexByte(",:]} \t\n\r", s[j]) < 0 {
		j++
	}
	return j, j > i
}
