package llm

import (
	"bytes"

	openai "github.com/sashabaranov/go-openai"
)

// scanReply decodes a chat reply as json.Unmarshal into a wireResponse
// does, in one pass over the body without reflection (encoding/json took
// 5.6 µs of a 600-byte vLLM reply, about 5 % of a runner request's CPU;
// docs/benchmarks.md). It decides only the bodies it reads to the letter
// and leaves the others (ok false) to decodeReply's encoding/json decoder:
// a member named like one it reads in other letter case (json.Unmarshal
// matches those too), named with an escape, or named twice in an object;
// a string it keeps with a \u escape of a surrogate or invalid UTF-8
// (json.Unmarshal pairs surrogates and replaces bad bytes); a value of
// another type than the member's, an integer member that is not one,
// nesting deeper than maxScanDepth, and anything that is not JSON.
// FuzzScanReplyIsUnmarshal holds it to json.Unmarshal.
func scanReply(body []byte) (*wireResponse, bool) {
	s := scanner{b: body}
	w := new(wireResponse)
	s.space()
	if !s.object(func(key []byte) bool {
		switch string(key) {
		case "choices":
			return s.choices(&w.Choices)
		case "usage":
			return s.object(func(key []byte) bool {
				switch string(key) {
				case "prompt_tokens":
					return s.int(&w.Usage.PromptTokens)
				case "completion_tokens":
					return s.int(&w.Usage.CompletionTokens)
				}
				return s.other(key, "prompt_tokens", "completion_tokens")
			})
		}
		return s.other(key, "choices", "usage")
	}) {
		return nil, false
	}
	s.space()
	return w, s.i == len(s.b)
}

// maxScanDepth bounds the nesting scanReply follows.
const maxScanDepth = 64

// scanner reads JSON from b at i; its methods return false on anything
// scanReply leaves to encoding/json.
type scanner struct {
	b     []byte
	i     int
	depth int
}

func (s *scanner) space() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// null consumes a null and reports whether there was one.
func (s *scanner) null() bool { return s.word("null") }

// object reads an object (or null), calling member for each member with
// the scanner at its value. A member name met twice, or written with an
// escape (unescaped, it might name a member read here), is refused.
func (s *scanner) object(member func(key []byte) bool) bool {
	if s.null() {
		return true
	}
	if s.i >= len(s.b) || s.b[s.i] != '{' || s.depth >= maxScanDepth {
		return false
	}
	s.i++
	s.depth++
	defer func() { s.depth-- }()
	var seenBuf [8][]byte
	seen := seenBuf[:0]
	s.space()
	if s.i < len(s.b) && s.b[s.i] == '}' {
		s.i++
		return true
	}
	for {
		s.space()
		key, ok := s.rawString()
		if !ok || bytes.IndexByte(key, '\\') >= 0 {
			return false
		}
		for _, k := range seen {
			if bytes.Equal(k, key) {
				return false
			}
		}
		seen = append(seen, key)
		s.space()
		if s.i >= len(s.b) || s.b[s.i] != ':' {
			return false
		}
		s.i++
		s.space()
		if !member(key) {
			return false
		}
		s.space()
		if s.i >= len(s.b) {
			return false
		}
		switch s.b[s.i] {
		case ',':
			s.i++
		case '}':
			s.i++
			return true
		default:
			return false
		}
	}
}

// array reads an array (or null), calling elem with the scanner at each
// element; isNull says it was null.
func (s *scanner) array(elem func() bool) (isNull, ok bool) {
	if s.null() {
		return true, true
	}
	if s.i >= len(s.b) || s.b[s.i] != '[' || s.depth >= maxScanDepth {
		return false, false
	}
	s.i++
	s.depth++
	defer func() { s.depth-- }()
	s.space()
	if s.i < len(s.b) && s.b[s.i] == ']' {
		s.i++
		return false, true
	}
	for {
		s.space()
		if !elem() {
			return false, false
		}
		s.space()
		if s.i >= len(s.b) {
			return false, false
		}
		switch s.b[s.i] {
		case ',':
			s.i++
		case ']':
			s.i++
			return false, true
		default:
			return false, false
		}
	}
}

// other skips an unknown member's value; a name that matches one of the
// known names in other letter case is refused (json.Unmarshal would read
// it).
func (s *scanner) other(key []byte, known ...string) bool {
	for _, k := range known {
		if bytes.EqualFold(key, []byte(k)) {
			return false
		}
	}
	return s.skip()
}

func (s *scanner) choices(out *[]wireChoice) bool {
	list := []wireChoice{}
	isNull, ok := s.array(func() bool {
		var c wireChoice
		ok := s.object(func(key []byte) bool {
			switch string(key) {
			case "index":
				return s.int(&c.Index)
			case "finish_reason":
				var r string
				if !s.str(&r) {
					return false
				}
				c.FinishReason = openai.FinishReason(r)
				return true
			case "message":
				return s.object(func(key []byte) bool {
					switch string(key) {
					case "content":
						return s.str(&c.Message.Content)
					case "reasoning_content":
						return s.str(&c.Message.ReasoningContent)
					}
					return s.other(key, "content", "reasoning_content")
				})
			}
			return s.other(key, "index", "finish_reason", "message")
		})
		list = append(list, c)
		return ok
	})
	if !ok {
		return false
	}
	if !isNull {
		*out = list
	}
	return true
}
