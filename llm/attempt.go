package llm

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// chatRequest is a request ready to send: the go-openai request (for its
// validation and the choice count) and the JSON body every attempt sends.
// The body's buffer comes from reqBufs and goes back there when the
// request ends, unless an attempt went through net/http (release):
// net/http sends a body's first bytes with the headers only when it is a
// *bytes.Reader (or the like), which has no Close to say when the
// transport, which may still write it after RoundTrip returns, is done
// with it. internal/h1 writes it before Do returns.
type chatRequest struct {
	o    openai.ChatCompletionRequest
	body []byte
	buf  *[]byte // body's pooled buffer
}

// release gives the body's buffer back; the body must not be used after.
func (r *chatRequest) release() {
	if r.buf != nil {
		*r.buf = r.body[:0] // appending may have outgrown the buffer taken
		reqBufs.put(r.buf)
	}
	r.buf, r.body = nil, nil
}

// buildChatRequest merges the endpoint defaults into req and encodes the
// body (wire.go).
func buildChatRequest(ep Endpoint, req Request, model string) (chatRequest, error) {
	s := ep.Sampling
	o := openai.ChatCompletionRequest{Model: model, N: req.N, Stop: req.Stop, Seed: req.Seed, MaxTokens: req.MaxTokens}
	if o.N == 1 {
		o.N = 0 // the server default; keeps the body minimal
	}
	if o.MaxTokens == 0 {
		o.MaxTokens = s.MaxTokens
	}
	if o.Stop == nil {
		o.Stop = s.Stop
	}
	if o.Seed == nil {
		o.Seed = s.Seed
	}
	// o carries no messages: go-openai's validation does not read them,
	// and every attempt sends the body encoded here.
	w := wireRequest{Model: model, N: o.N, Stop: o.Stop, Seed: o.Seed, MaxTokens: o.MaxTokens,
		Messages: wireMessages(req.Messages)}
	size := 256 + len(model)
	for _, m := range req.Messages {
		size += len(m.Role) + len(m.Content) + 32
	}
	// o carries no chat_template_kwargs either (go-openai's validation
	// does not read them): the body writes enable_thinking without the
	// map (and its JSON encoding) every request made.
	w.enableThinking = req.EnableThinking
	if w.enableThinking == nil {
		w.enableThinking = ep.EnableThinking
	}
	if len(req.JSONSchema) > 0 {
		name := req.SchemaName
		if name == "" {
			name = "response"
		}
		o.ResponseFormat = &openai.ChatCompletionResponseFormat{
			Type: openai.ChatCompletionResponseFormatTypeJSONSchema,
			JSONSchema: &openai.ChatCompletionResponseFormatJSONSchema{
				Name: name, Schema: req.JSONSchema, Strict: true,
			},
		}
	}
	w.ResponseFormat = o.ResponseFormat
	w.Temperature = cmp.Or(req.Temperature, s.Temperature)
	w.TopP = cmp.Or(req.TopP, s.TopP)
	w.TopK = cmp.Or(req.TopK, s.TopK)
	w.RepetitionPenalty = cmp.Or(req.RepetitionPenalty, s.RepetitionPenalty)
	w.TruncatePromptTokens = cmp.Or(req.TruncatePromptTokens, s.TruncatePromptTokens)
	if err := openai.NewReasoningValidator().Validate(o); err != nil {
		return chatRequest{}, err
	}
	buf := reqBufs.get(size + size/16)
	body, ok := appendWireRequest((*buf)[:0], &w)
	if !ok {
		reqBufs.put(buf)
		buf = nil
		if w.enableThinking != nil {
			w.ChatTemplateKwargs = map[string]any{"enable_thinking": *w.enableThinking}
		}
		var err error
		if body, err = json.Marshal(w); err != nil {
			return chatRequest{}, fmt.Errorf("encoding the request: %w", err)
		}
	}
	return chatRequest{o: o, body: body, buf: buf}, nil
}

// attempt sends one HTTP attempt to rep under the endpoint's per-attempt
// deadline, or the request's total deadline when that comes first. kind
// is "" on success; msg explains a failure.
func (c *Client) attempt(ctx context.Context, total time.Time, st *endpointState, rep *replica, creq chatRequest,
	requestID string) (out wireResponse, as *attemptState, kind Kind, msg string) {
	as = &attemptState{body: creq.body, requestID: requestID}
	dl := time.Now().Add(st.ep.Timeout)
	if total.Before(dl) {
		dl = total
	}
	actx, cancel := context.WithDeadline(withAttempt(ctx, as), dl)
	defer cancel()
	// go-openai encodes only the model: the doer sends creq.body instead.
	o, err := rep.oc.CreateChatCompletion(actx, openai.ChatCompletionRequest{Model: creq.o.Model})
	if err != nil {
		kind, msg = classify(err, as.status, actx)
		if msg == "" && len(as.errBody) > 0 {
			msg = flatMessage(as.errBody) // go-openai found no message in the body
		}
		return out, as, kind, msg
	}
	if as.reply != nil {
		out = *as.reply
	} else {
		out = fromOpenAI(o) // a reply decodeReply left to go-openai
	}
	if len(out.Choices) == 0 {
		return out, as, KindMalformed, "response has no choices"
	}
	if n := max(creq.o.N, 1); len(out.Choices) != n {
		return out, as, KindMalformed, fmt.Sprintf("asked for %d choices, got %d", n, len(out.Choices))
	}
	if st.ep.RetryEmpty {
		for _, ch := range out.Choices {
			if StripThink(ch.Message.Content) == "" {
				return out, as, KindEmpty, fmt.Sprintf("choice %d is empty", ch.Index)
			}
		}
	}
	return out, as, "", ""
}

// classify maps an attempt error to a Kind. status is the HTTP status the
// doer saw (0 when no response arrived).
func classify(err error, status int, actx context.Context) (Kind, string) {
	var apiErr *openai.APIError
	var reqErr *openai.RequestError
	switch {
	case errors.As(err, &apiErr):
		return statusKind(apiErr.HTTPStatusCode), apiErr.Message
	case errors.As(err, &reqErr):
		// vLLM's flat {"object":"error","message":...} lands here too.
		return statusKind(reqErr.HTTPStatusCode), flatMessage(reqErr.Body)
	}
	if actx.Err() != nil && errors.Is(err, context.DeadlineExceeded) {
		return KindTimeout, "attempt deadline exceeded"
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return KindTimeout, err.Error()
	}
	if isConnErr(err) {
		return KindConnection, err.Error()
	}
	if status >= 200 && status < 300 {
		return KindMalformed, "decoding response: " + err.Error()
	}
	return KindConnection, err.Error()
}

func statusKind(code int) Kind {
	switch {
	case code == 429:
		return KindRateLimited
	case code == 408 || code >= 500:
		return KindServer
	default:
		return KindClient
	}
}

func isConnErr(err error) bool {
	var ne net.Error
	var op *net.OpError
	return errors.As(err, &op) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.EPIPE) || (errors.As(err, &ne) && !errors.Is(err, io.ErrUnexpectedEOF)) ||
		strings.Contains(err.Error(), "server closed idle connection") ||
		(errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF))
}

// flatMessage extracts "message" from vLLM's flat or nested error JSON, or
// returns the body itself.
func flatMessage(body []byte) string {
	var flat struct {
		Message string          `json:"message"`
		Error   json.RawMessage `json:"error"`
		Detail  any             `json:"detail"`
	}
	if json.Unmarshal(body, &flat) == nil {
		if flat.Message != "" {
			return flat.Message
		}
		var nested struct {
			Message string `json:"message"`
		}
		if json.Unmarshal(flat.Error, &nested) == nil && nested.Message != "" {
			return nested.Message
		}
		if len(flat.Error) > 0 {
			return string(flat.Error)
		}
		if flat.Detail != nil {
			return fmt.Sprint(flat.Detail)
		}
	}
	return string(body)
}
