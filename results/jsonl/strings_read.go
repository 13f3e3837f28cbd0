package jsonl

import (
	"strconv"
	"unicode/utf8"
)

// Reading JSON strings from bytes a hand-written scanner walks: the llm
// client's reply scanner and Decode's scanner of exported lines. A string
// is refused where json.Unmarshal would refuse it (a control character, a
// malformed escape) and where it would change it (a \u escape of a
// surrogate, which it pairs or replaces): the callers then take their
// general decoder's path, which decides. Generic over string and []byte,
// so that a scanner of either reads without copying.

// StringEnd returns the index of the quote that closes the string whose first
// byte (after its opening quote) is b[i], or false when the string is not
// closed, holds a control character or a malformed escape.
func StringEnd[T ~string | ~[]byte](b T, i int) (int, bool) {
	for i < len(b) {
		switch c := b[i]; {
		case c == '"':
			return i, true
		case c < 0x20:
			return 0, false
		case c != '\\':
			i++
			continue
		}
		if i+1 >= len(b) {
			return 0, false
		}
		switch b[i+1] {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			i += 2
		case 'u':
			if i+6 > len(b) {
				return 0, false
			}
			for k := i + 2; k < i+6; k++ {
				if !isHex(b[k]) {
					return 0, false
				}
			}
			i += 6
		default:
			return 0, false
		}
	}
	return 0, false
}

// UnescapeString decodes the escapes of raw, a string's bytes between its quotes
// as StringEnd accepts them; false for a \u escape of a surrogate.
func UnescapeString[T ~string | ~[]byte](raw T) (string, bool) {
	out := make([]byte, 0, len(raw))
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if c != '\\' {
			out = append(out, c)
			continue
		}
		if i+1 >= len(raw) {
			return "", false
		}
		i++
		switch raw[i] {
		case '"', '\\', '/':
			out = append(out, raw[i])
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			if i+5 > len(raw) {
				return "", false
			}
			r, err := strconv.ParseUint(string(raw[i+1:i+5]), 16, 32)
			if err != nil || 0xD800 <= r && r <= 0xDFFF {
				return "", false
			}
			out = utf8.AppendRune(out, rune(r))
			i += 4
		default:
			return "", false
		}
	}
	return string(out), true
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}
