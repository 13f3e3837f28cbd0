package jsonl

import (
	"encoding/json"
	"strconv"
	"strings"
)

// The canonical scanner's primitives: integers, strings (sliced from the
// line when they have no escape) and verbatim values, which it validates.

// int reads an integer (its canonical spelling is left to the check).
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
	*dst, c.i = n, j
	return true
}

// str reads a string: a slice of the line when it has no escape.
func (c *canonScanner) str(dst *string) bool {
	if !c.lit(`"`) {
		return false
	}
	rest := c.s[c.i:]
	end := strings.IndexByte(rest, '"')
	if end < 0 {
		return false
	}
	if strings.IndexByte(rest[:end], '\\') < 0 {
		*dst, c.i = rest[:end], c.i+end+1
		return true
	}
	end, ok := StringEnd(c.s, c.i) // the first quote was escaped
	if !ok {
		return false
	}
	if *dst, ok = UnescapeString(c.s[c.i:end]); !ok {
		return false
	}
	c.i = end + 1
	return true
}

// raw reads one JSON value verbatim (nil when it is not valid JSON): the
// check writes it back as it is, so it is validated here.
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
