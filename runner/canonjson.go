package runner

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"mascot.dev/mascot/results/jsonl"
)

// Unit fingerprints hash the canonical JSON of a unit's inputs: what
// encoding/json writes for them once decoded into any (objects with sorted
// keys, every number a float64, strings escaped as json.Marshal escapes
// them). Decoding into any and encoding again allocated a map or an
// interface per value of a unit's whole context, which for long dialogues
// made fingerprinting a large part of a stage's CPU (docs/benchmarks.md).
// canonicalJSON writes the same bytes from json.Marshal's output in one
// pass over it; TestCanonicalJSONMatchesRoundTrip and FuzzCanonicalJSON
// compare the two.

// canonicalJSON returns the canonical form of the JSON value b (compact,
// as json.Marshal writes it).
func canonicalJSON(b []byte) ([]byte, error) {
	c := canon{in: b}
	c.out = make([]byte, 0, len(b))
	c.space()
	if err := c.value(0); err != nil {
		return nil, err
	}
	c.space()
	if c.i != len(c.in) {
		return nil, c.errorf("data after the value")
	}
	return c.out, nil
}

type canon struct {
	in  []byte
	i   int
	out []byte
	ms  []member // the members of the objects being written, innermost last
}

// maxDepth is encoding/json's nesting limit, past which it fails to decode.
const maxDepth = 10000

var errCanon = errors.New("canonical JSON")

func (c *canon) errorf(format string, args ...any) error {
	return fmt.Errorf("%w: offset %d: %s", errCanon, c.i, fmt.Sprintf(format, args...))
}

func (c *canon) space() {
	for c.i < len(c.in) {
		switch c.in[c.i] {
		case ' ', '\t', '\n', '\r':
			c.i++
		default:
			return
		}
	}
}

func (c *canon) value(depth int) error {
	if c.i >= len(c.in) {
		return c.errorf("unexpected end")
	}
	switch ch := c.in[c.i]; {
	case ch == '{':
		if depth >= maxDepth {
			return c.errorf("nested too deep")
		}
		return c.object(depth + 1)
	case ch == '[':
		if depth >= maxDepth {
			return c.errorf("nested too deep")
		}
		return c.array(depth + 1)
	case ch == '"':
		_, err := c.str(false)
		return err
	case ch == 't':
		return c.literal("true")
	case ch == 'f':
		return c.literal("false")
	case ch == 'n':
		return c.literal("null")
	case ch == '-' || ch >= '0' && ch <= '9':
		return c.number()
	}
	return c.errorf("unexpected %q", c.in[c.i])
}

func (c *canon) literal(lit string) error {
	if !bytes.HasPrefix(c.in[c.i:], []byte(lit)) {
		return c.errorf("bad literal")
	}
	c.i += len(lit)
	c.out = append(c.out, lit...)
	return nil
}

// number writes the literal as json.Marshal writes the float64 that
// json.Unmarshal reads from it.
func (c *canon) number() error {
	start := c.i
	for c.i < len(c.in) {
		ch := c.in[c.i]
		if ch >= '0' && ch <= '9' || ch == '-' || ch == '+' || ch == '.' || ch == 'e' || ch == 'E' {
			c.i++
			continue
		}
		break
	}
	lit := string(c.in[start:c.i])
	if !validNumber(lit) {
		return c.errorf("bad number %q", lit)
	}
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil {
		return c.errorf("number %s out of range", lit)
	}
	c.out = jsonl.AppendFloat(c.out, f)
	return nil
}

// validNumber is JSON's number grammar.
func validNumber(s string) bool {
	s = strings.TrimPrefix(s, "-")
	if s == "" {
		return false
	}
	switch {
	case s[0] == '0':
		s = s[1:]
	case s[0] >= '1' && s[0] <= '9':
		s = strings.TrimLeft(s[1:], "0123456789")
	default:
		return false
	}
	if rest, ok := strings.CutPrefix(s, "."); ok {
		if rest == "" || rest[0] < '0' || rest[0] > '9' {
			return false
		}
		s = strings.TrimLeft(rest, "0123456789")
	}
	if len(s) > 0 && (s[0] == 'e' || s[0] == 'E') {
		s = s[1:]
		if len(s) > 0 && (s[0] == '+' || s[0] == '-') {
			s = s[1:]
		}
		if s == "" || s[0] < '0' || s[0] > '9' {
			return false
		}
		s = strings.TrimLeft(s, "0123456789")
	}
	return s == ""
}

// str reads a string literal and writes it canonically: as it is when
// json.Marshal would write its value so (most strings), else through
// json.Unmarshal and json.Marshal themselves. With key set it also returns
// the string's value, which orders an object's keys (a view of the input
// when the literal has no escape).
func (c *canon) str(key bool) ([]byte, error) {
	start := c.i
	c.i++ // the opening quote
	canonical, plain := true, true
	for c.i < len(c.in) {
		ch := c.in[c.i]
		switch {
		case ch == '"':
			c.i++
			lit := c.in[start:c.i]
			if canonical {
				c.out = append(c.out, lit...)
				if !key {
					return nil, nil
				}
				if plain {
					return lit[1 : len(lit)-1], nil
				}
			}
			var v string
			if err := json.Unmarshal(lit, &v); err != nil {
				return nil, c.errorf("bad string: %v", err)
			}
			if !canonical {
				c.out = jsonl.AppendString(c.out, v) // json.Marshal's bytes
			}
			return []byte(v), nil
		case ch == '\\':
			plain = false
			n := 2
			if c.i+1 < len(c.in) && c.in[c.i+1] == 'u' {
				n = 6
			}
			if c.i+n > len(c.in) {
				return nil, c.errorf("unterminated string")
			}
			if !canonEscapes[string(c.in[c.i:c.i+n])] {
				canonical = false
			}
			c.i += n
		case ch < 0x20:
			return nil, c.errorf("control character in a string")
		case ch == '<' || ch == '>' || ch == '&':
			canonical = false
			c.i++
		case ch >= utf8.RuneSelf:
			r, size := utf8.DecodeRune(c.in[c.i:])
			if r == utf8.RuneError && size == 1 || r == '\u2028' || r == '\u2029' {
				canonical = false
			}
			c.i += size
		default:
			c.i++
		}
	}
	return nil, c.errorf("unterminated string")
}

// canonEscapes are the escape sequences json.Marshal writes in strings.
var canonEscapes = func() map[string]bool {
	m := map[string]bool{}
	for _, r := range []rune{'"', '\\', '<', '>', '&', '\u2028', '\u2029'} {
		addEscape(m, r)
	}
	for r := rune(0); r < 0x20; r++ {
		addEscape(m, r)
	}
	return m
}()

func addEscape(m map[string]bool, r rune) {
	enc, _ := json.Marshal(string(r))
	if esc := enc[1 : len(enc)-1]; esc[0] == '\\' {
		m[string(esc)] = true
	}
}

func (c *canon) array(depth int) error {
	c.i++ // [
	c.out = append(c.out, '[')
	c.space()
	if c.i < len(c.in) && c.in[c.i] == ']' {
		c.i++
		c.out = append(c.out, ']')
		return nil
	}
	for {
		c.space()
		if err := c.value(depth); err != nil {
			return err
		}
		c.space()
		if c.i >= len(c.in) {
			return c.errorf("unterminated array")
		}
		switch c.in[c.i] {
		case ',':
			c.i++
			c.out = append(c.out, ',')
		case ']':
			c.i++
			c.out = append(c.out, ']')
			return nil
		default:
			return c.errorf("unexpected %q in an array", c.in[c.i])
		}
	}
}

// member is one key of an object and where its canonical "key":value
// lies in the output.
type member struct {
	key        []byte
	start, end int
}

// object writes the members in the order json.Marshal writes a map's keys
// (sorted), the last of a repeated key winning as json.Unmarshal does. The
// members are written as they come; an object whose keys were not sorted
// already (a struct's) is then rearranged.
func (c *canon) object(depth int) error {
	c.i++ // {
	open := len(c.out)
	c.out = append(c.out, '{')
	c.space()
	if c.i < len(c.in) && c.in[c.i] == '}' {
		c.i++
		c.out = append(c.out, '}')
		return nil
	}
	base := len(c.ms)
	defer func() { c.ms = c.ms[:base] }()
	sorted := true
	for {
		c.space()
		if c.i >= len(c.in) || c.in[c.i] != '"' {
			return c.errorf("object key expected")
		}
		if len(c.ms) > base {
			c.out = append(c.out, ',')
		}
		m := member{start: len(c.out)}
		key, err := c.str(true)
		if err != nil {
			return err
		}
		c.space()
		if c.i >= len(c.in) || c.in[c.i] != ':' {
			return c.errorf("colon expected")
		}
		c.i++
		c.out = append(c.out, ':')
		c.space()
		if err := c.value(depth); err != nil {
			return err
		}
		m.key, m.end = key, len(c.out)
		if len(c.ms) > base && bytes.Compare(c.ms[len(c.ms)-1].key, key) >= 0 {
			sorted = false
		}
		c.ms = append(c.ms, m)
		c.space()
		if c.i >= len(c.in) {
			return c.errorf("unterminated object")
		}
		if c.in[c.i] == '}' {
			c.i++
			break
		}
		if c.in[c.i] != ',' {
			return c.errorf("unexpected %q in an object", c.in[c.i])
		}
		c.i++
	}
	if ms := c.ms[base:]; !sorted {
		written := bytes.Clone(c.out[open:])
		slices.SortStableFunc(ms, func(a, b member) int { return bytes.Compare(a.key, b.key) })
		c.out = append(c.out[:open], '{')
		n := 0
		for k, m := range ms {
			if k+1 < len(ms) && bytes.Equal(ms[k+1].key, m.key) {
				continue // a later one of the same key wins
			}
			if n > 0 {
				c.out = append(c.out, ',')
			}
			n++
			c.out = append(c.out, written[m.start-open:m.end-open]...)
		}
	}
	c.out = append(c.out, '}')
	return nil
}
