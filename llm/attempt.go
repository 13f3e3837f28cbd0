package llm

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"syscall"

	openai "github.com/sashabaranov/go-openai"
)

// buildChatRequest merges the endpoint defaults into req and returns the
// go-openai request plus the members to splice into its JSON body.
func buildChatRequest(ep Endpoint, req Request, model string) (openai.ChatCompletionRequest, []byte) {
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
	o.Messages = make([]openai.ChatCompletionMessage, len(req.Messages))
	for i, m := range req.Messages {
		o.Messages[i] = openai.ChatCompletionMessage{Role: m.Role, Content: m.Content}
	}
	think := req.EnableThinking
	if think == nil {
		think = ep.EnableThinking
	}
	if think != nil {
		o.ChatTemplateKwargs = map[string]any{"enable_thinking": *think}
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
	// Appended without fmt: this runs for every request.
	var extra []byte
	member := func(k string) {
		if len(extra) > 0 {
			extra = append(extra, ',')
		}
		extra = append(append(append(extra, '"'), k...), '"', ':')
	}
	addF := func(k string, p, def *float64) {
		if p == nil {
			p = def
		}
		if p != nil {
			member(k)
			extra = strconv.AppendFloat(extra, *p, 'g', -1, 64)
		}
	}
	addF("temperature", req.Temperature, s.Temperature)
	addF("top_p", req.TopP, s.TopP)
	if k := cmp.Or(req.TopK, s.TopK); k != nil {
		member("top_k")
		extra = strconv.AppendInt(extra, int64(*k), 10)
	}
	addF("repetition_penalty", req.RepetitionPenalty, s.RepetitionPenalty)
	return o, extra
}

// attempt sends one HTTP attempt to rep under the endpoint's per-attempt
// deadline. kind is "" on success; msg explains a failure.
func (c *Client) attempt(ctx context.Context, st *endpointState, rep *replica, oreq openai.ChatCompletionRequest,
	extra []byte, requestID string) (out openai.ChatCompletionResponse, as *attemptState, kind Kind, msg string) {
	as = &attemptState{extra: extra, requestID: requestID}
	actx, cancel := context.WithTimeout(withAttempt(ctx, as), st.ep.Timeout)
	defer cancel()
	out, err := rep.oc.CreateChatCompletion(actx, oreq)
	if err != nil {
		kind, msg = classify(err, as.status, actx)
		if msg == "" && len(as.errBody) > 0 {
			msg = flatMessage(as.errBody) // go-openai found no message in the body
		}
		return out, as, kind, msg
	}
	if len(out.Choices) == 0 {
		return out, as, KindMalformed, "response has no choices"
	}
	if n := max(oreq.N, 1); len(out.Choices) != n {
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
