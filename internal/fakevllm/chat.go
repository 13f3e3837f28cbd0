package fakevllm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	jsonv1 "github.com/go-json-experiment/json/v1"
)

type chatMessage struct {
	Role string `json:"role"`
	// A string or a list of parts, decoded once as the document is read
	// (held raw and decoded again, a prompt was scanned four times;
	// docs/benchmarks.md).
	Content any `json:"content"`
}

type chatRequest struct {
	Model              string         `json:"model"`
	Messages           []chatMessage  `json:"messages"`
	N                  *int           `json:"n"`
	Seed               *int64         `json:"seed"`
	Temperature        *float64       `json:"temperature"`
	MaxTokens          *int           `json:"max_tokens"`
	MaxCompletion      *int           `json:"max_completion_tokens"`
	Stream             bool           `json:"stream"`
	ChatTemplateKwargs map[string]any `json:"chat_template_kwargs"`
	ResponseFormat     *struct {
		Type       string `json:"type"`
		JSONSchema *struct {
			Name   string          `json:"name"`
			Schema json.RawMessage `json:"schema"`
		} `json:"json_schema"`
	} `json:"response_format"`
}

// text returns the message content as text (a string or text parts).
func (m chatMessage) text() string {
	switch c := m.Content.(type) {
	case string:
		return c
	case []any:
		var b strings.Builder
		for _, p := range c {
			part, ok := p.(map[string]any)
			if !ok {
				return "" // as a list that is not of parts
			}
			switch t := part["text"].(type) {
			case string:
				b.WriteString(t)
			case nil:
			default:
				return ""
			}
		}
		return b.String()
	}
	return ""
}

type chatChoice struct {
	Index        int            `json:"index"`
	Message      map[string]any `json:"message"`
	Logprobs     any            `json:"logprobs"`
	FinishReason string         `json:"finish_reason"`
	StopReason   any            `json:"stop_reason"`
}

func (s *Server) handleChat(w http.ResponseWriter, r *http.Request) {
	var req chatRequest
	if err := decodeBody(r, &req); err != nil {
		s.writeError(w, http.StatusBadRequest, "BadRequestError", "JSON decode error: "+err.Error(), nil)
		return
	}
	if msg, param := validateChat(req); msg != "" {
		s.writeError(w, http.StatusBadRequest, "BadRequestError", msg, strp(param))
		return
	}
	if !s.knownModel(req.Model) {
		s.writeError(w, http.StatusNotFound, "NotFoundError", fmt.Sprintf("The model `%s` does not exist.", req.Model),
			strp("model"))
		return
	}
	p := newPrompt(req, s.opts.Model)
	f, handled := s.preFault(w, r, p.directive)
	if handled {
		return
	}
	n := 1
	if req.N != nil {
		n = *req.N
	}
	think, _ := req.ChatTemplateKwargs["enable_thinking"].(bool)
	choices := make([]chatChoice, n)
	completion := 0
	for i := range choices {
		var text, fin string
		switch f {
		case FaultEmpty:
			text, fin = "", "stop"
		case FaultGarbageDirective:
			text, fin = p.garbage(i), "stop"
		default:
			gen, ok := s.reply(req, i)
			if !ok {
				gen = p.generate(i)
			}
			text, fin = truncateWords(gen, maxTokens(req))
			if think {
				text = "<think>\n" + p.reasoning(i) + "\n</think>\n\n" + text
			}
		}
		if s.opts.EchoAuthorization {
			text += " " + r.Header.Get("Authorization")
		}
		completion += countWords(text)
		choices[i] = chatChoice{Index: i, FinishReason: fin,
			Message: map[string]any{"role": "assistant", "content": text, "reasoning_content": nil, "tool_calls": []any{}}}
	}
	model := req.Model
	if model == "" {
		model = s.opts.Model
	}
	body := map[string]any{
		"id": "chatcmpl-" + p.id(), "object": "chat.completion", "created": time.Now().Unix(), "model": model,
		"choices": choices, "prompt_logprobs": nil,
		"usage": map[string]any{"prompt_tokens": p.promptTokens, "completion_tokens": completion,
			"total_tokens": p.promptTokens + completion, "prompt_tokens_details": nil},
	}
	s.usage(r, f, p.promptTokens, completion)
	s.send(w, body, f)
}

func maxTokens(req chatRequest) int {
	if req.MaxTokens != nil {
		return *req.MaxTokens
	}
	if req.MaxCompletion != nil {
		return *req.MaxCompletion
	}
	return 0
}

func validateChat(req chatRequest) (msg, param string) {
	switch {
	case len(req.Messages) == 0:
		return "messages must contain at least one message", "messages"
	case req.N != nil && *req.N < 1:
		return "n must be at least 1, got " + strconv.Itoa(*req.N) + ".", "n"
	case req.Temperature != nil && *req.Temperature < 0:
		return fmt.Sprintf("temperature must be non-negative, got %g.", *req.Temperature), "temperature"
	case req.Stream:
		return "streaming is not supported by the fake server", "stream"
	}
	return "", ""
}

// preFault draws the request's fault and the latency. Status faults and
// stalls are answered here (handled); body faults are left to send.
func (s *Server) preFault(w http.ResponseWriter, r *http.Request, directive bool) (Fault, bool) {
	f, cfg := s.drawFault(directive)
	if f == FaultStall {
		s.wait(r, cfg.StallFor)
		s.writeError(w, http.StatusServiceUnavailable, "ServiceUnavailableError", "stalled request gave up", nil)
		return f, true
	}
	s.wait(r, s.delay())
	switch f {
	case FaultRateLimit:
		secs := int((cfg.RetryAfter + time.Second - 1) / time.Second)
		w.Header().Set("Retry-After", strconv.Itoa(secs))
		s.writeError(w, http.StatusTooManyRequests, "TooManyRequestsError", "The server is overloaded; retry later.", nil)
	case FaultServerError:
		s.writeError(w, http.StatusInternalServerError, "InternalServerError", "EngineCore encountered an issue.", nil)
	case FaultUnavailable:
		s.writeError(w, http.StatusServiceUnavailable, "ServiceUnavailableError", "The engine is not ready.", nil)
	default:
		return f, false
	}
	return f, true
}

// send writes a 200 body, cut in half for FaultTruncated and replaced by
// non-JSON for FaultMalformed.
func (s *Server) send(w http.ResponseWriter, body any, f Fault) {
	b, _ := json.Marshal(body)
	switch f {
	case FaultTruncated:
		b = b[:len(b)/2]
	case FaultMalformed:
		b = []byte(`{"id": "chatcmpl-broken", "choices": [ <html>502 Bad Gateway</html>`)
	}
	w.Header().Set("Content-Type", "application/json")
	if f != FaultTruncated {
		w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	}
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(b)
}

// truncateWords keeps at most max words (0: no limit); the finish reason
// is "length" when it cut.
func truncateWords(s string, max int) (string, string) {
	if max <= 0 {
		return s, "stop"
	}
	f := strings.Fields(s)
	if len(f) <= max {
		return s, "stop"
	}
	return strings.Join(f[:max], " "), "length"
}

// countWords is len(strings.Fields(s)), without the slice: the server
// counts every prompt's words for its usage.
func countWords(s string) int {
	n, in := 0, false
	for i := 0; i < len(s); {
		var space bool
		if c := s[i]; c < utf8.RuneSelf {
			space = c == ' ' || c-'\t' <= '\r'-'\t' // \t \n \v \f \r, as unicode.IsSpace
			i++
		} else {
			r, size := utf8.DecodeRuneInString(s[i:])
			space = unicode.IsSpace(r)
			i += size
		}
		if space {
			in = false
		} else if !in {
			n, in = n+1, true
		}
	}
	return n
}

// decodeBody decodes a request's JSON body into v with json v2's engine
// under encoding/json's rules (github.com/go-json-experiment/json/v1):
// the server shares the client's cores in the benchmarks, where
// encoding/json's Decoder, reading a prompt twice (once to find the
// value's end, once to decode it), was a large part of its CPU
// (docs/benchmarks.md). The buffer is sized from the declared length, up
// to 1 MiB (a longer body grows it).
func decodeBody(r *http.Request, v any) error {
	buf := bytes.NewBuffer(make([]byte, 0, min(max(r.ContentLength, 0), 1<<20)+bytes.MinRead))
	if _, err := buf.ReadFrom(r.Body); err != nil {
		return err
	}
	return jsonv1.Unmarshal(buf.Bytes(), v)
}
