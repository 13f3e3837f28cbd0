package serve

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
)

func randomID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// sse writes Server-Sent Events in OpenAI's framing.
type sse struct {
	w http.ResponseWriter
	f http.Flusher
}

func newSSE(w http.ResponseWriter) *sse {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	f, _ := w.(http.Flusher)
	return &sse{w: w, f: f}
}

func (s *sse) send(v any) {
	b, _ := json.Marshal(v)
	fmt.Fprintf(s.w, "data: %s\n\n", b)
	if s.f != nil {
		s.f.Flush()
	}
}

func (s *sse) done() {
	fmt.Fprint(s.w, "data: [DONE]\n\n")
	if s.f != nil {
		s.f.Flush()
	}
}

func (s *sse) fail(err error) {
	e := engineError(err)
	s.send(map[string]any{"error": map[string]any{"message": e.msg, "type": e.typ, "param": nil, "code": e.status}})
	s.done()
}

// pump delivers the job's events to fn until every choice finished; it
// returns an error from the engine, or nil when the client went away.
func pump(r *http.Request, j *job, fn func(event)) error {
	left := j.n
	for left > 0 {
		select {
		case <-r.Context().Done():
			return nil
		case <-j.out.signal:
		}
		for _, ev := range j.out.take() {
			if ev.err != nil {
				return ev.err
			}
			fn(ev)
			if ev.finish != "" {
				left--
			}
		}
	}
	return nil
}

func (s *Server) streamChat(w http.ResponseWriter, r *http.Request, j *job, m respMeta, logprobs, withUsage bool) {
	out := newSSE(w)
	chunk := func(choices []map[string]any) map[string]any {
		c := map[string]any{"id": m.id, "object": "chat.completion.chunk", "created": m.created, "model": m.model, "choices": choices}
		if withUsage {
			c["usage"] = nil
		}
		return c
	}
	for i := range j.n {
		out.send(chunk([]map[string]any{{"index": i, "delta": map[string]any{"role": "assistant", "content": ""},
			"logprobs": nil, "finish_reason": nil}}))
	}
	completion := 0
	err := pump(r, j, func(ev event) {
		completion += len(ev.tokens)
		if ev.text != "" || (logprobs && len(ev.tokens) > 0 && ev.finish == "") {
			c := map[string]any{"index": ev.index, "delta": map[string]any{"content": ev.text}, "logprobs": nil, "finish_reason": nil}
			if logprobs {
				c["logprobs"] = map[string]any{"content": chatLogprobs(j.b, ev.tokens)}
			}
			out.send(chunk([]map[string]any{c}))
		}
		if ev.finish != "" {
			out.send(chunk([]map[string]any{{"index": ev.index, "delta": map[string]any{}, "logprobs": nil,
				"finish_reason": ev.finish, "stop_reason": ev.stopReason}}))
		}
	})
	if err != nil {
		out.fail(err)
		return
	}
	if withUsage {
		out.send(map[string]any{"id": m.id, "object": "chat.completion.chunk", "created": m.created, "model": m.model,
			"choices": []any{}, "usage": usage{len(j.prompt), completion, len(j.prompt) + completion}})
	}
	out.done()
}
