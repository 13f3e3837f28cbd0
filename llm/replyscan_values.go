package llm

import (
	"bytes"
	"strconv"
	"unicode/utf8"

	"mascot.dev/mascot/results/jsonl"
)

// The scalar values of scanReply's scanner.

// int reads an integer member (or null, which leaves it): a JSON number
// that strconv.ParseInt reads, as json.Unmarshal requires of an int.
func (s *scanner) int(v *int) bool {
	if s.null() {
		return true
	}
	start := s.i
	if !s.number() {
		return false
	}
	n, err := strconv.ParseInt(string(s.b[start:s.i]), 10, 0)
	if err != nil {
		return false
	}
	*v = int(n)
	return true
}

// str reads a string member (or null, which leaves it). A string with
// invalid UTF-8 or a \u escape of a surrogate is refused.
func (s *scanner) str(v *string) bool {
	if s.null() {
		return true
	}
	raw, ok := s.rawString()
	if !ok || !utf8.Valid(raw) {
		return false
	}
	if bytes.IndexByte(raw, '\\') < 0 {
		*v = string(raw)
		return true
	}
	u, ok := jsonl.UnescapeString(raw) // a surrogate: json.Unmarshal pairs or replaces it
	if !ok {
		return false
	}
	*v = u
	return true
}

// rawString reads a string and returns its bytes between the quotes,
// escapes undecoded. Control characters and malformed escapes are
// refused, as json.Unmarshal refuses them.
func (s *scanner) rawString() ([]byte, bool) {
	if s.i >= len(s.b) || s.b[s.i] != '"' {
		return nil, false
	}
	end, ok := jsonl.StringEnd(s.b, s.i+1)
	if !ok {
		return nil, false
	}
	raw := s.b[s.i+1 : end]
	s.i = end + 1
	return raw, true
}

// number reads a JSON number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (s *scanner) number() bool {
	b, i := s.b, s.i
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && '1' <= b[i] && b[i] <= '9':
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
		}
	default:
		return false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			return false
		}
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			return false
		}
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
		}
	}
	s.i = i
	return true
}

// skip reads any value.
func (s *scanner) skip() bool {
	if s.i >= len(s.b) {
		return false
	}
	switch c := s.b[s.i]; {
	case c == '{':
		return s.object(func([]byte) bool { return s.skip() })
	case c == '[':
		_, ok := s.array(s.skip)
		return ok
	case c == '"':
		_, ok := s.rawString()
		return ok
	case c == 't':
		return s.word("true")
	case c == 'f':
		return s.word("false")
	case c == 'n':
		return s.null()
	default:
		return s.number()
	}
}

func (s *scanner) word(w string) bool {
	if s.i+len(w) <= len(s.b) && string(s.b[s.i:s.i+len(w)]) == w {
		s.i += len(w)
		return true
	}
	return false
}
