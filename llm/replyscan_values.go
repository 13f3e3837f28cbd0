package llm

import (
	"bytes"
	"strconv"
	"unicode/utf8"
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
	out := make([]byte, 0, len(raw))
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if c != '\\' {
			out = append(out, c)
			continue
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
		default: // 'u', four hex digits (rawString checked them)
			r, err := strconv.ParseUint(string(raw[i+1:i+5]), 16, 32)
			if err != nil || 0xD800 <= r && r <= 0xDFFF {
				return false // a surrogate: json.Unmarshal pairs or replaces it
			}
			out = utf8.AppendRune(out, rune(r))
			i += 4
		}
	}
	*v = string(out)
	return true
}

// rawString reads a string and returns its bytes between the quotes,
// escapes undecoded. Control characters and malformed escapes are
// refused, as json.Unmarshal refuses them.
func (s *scanner) rawString() ([]byte, bool) {
	if s.i >= len(s.b) || s.b[s.i] != '"' {
		return nil, false
	}
	s.i++
	start := s.i
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			raw := s.b[start:s.i]
			s.i++
			return raw, true
		case c < 0x20:
			return nil, false
		case c == '\\':
			if s.i+1 >= len(s.b) {
				return nil, false
			}
			switch s.b[s.i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				s.i += 2
			case 'u':
				if s.i+6 > len(s.b) {
					return nil, false
				}
				for _, h := range s.b[s.i+2 : s.i+6] {
					if !isHex(h) {
						return nil, false
					}
				}
				s.i += 6
			default:
				return nil, false
			}
		default:
			s.i++
		}
	}
	return nil, false
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
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
