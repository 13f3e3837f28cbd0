package llm

import (
	"bytes"
	"encoding/json"
	"io"
	"sync"
	"unsafe"

	openai "github.com/sashabaranov/go-openai"
)

// The JSON of a chat completion, as mascot sends and reads it. go-openai
// still sends each attempt (its client, headers, errors and retry
// classification), but the body is encoded here once per request, and a
// successful reply is decoded here: go-openai's message type re-encodes
// each message through its own MarshalJSON, which encoding/json then
// re-scans and compacts (and the same again when decoding), the largest
// CPU cost of a request after the network itself (docs/benchmarks.md).
// Plain structs let encoding/json do one pass. The doer (transport.go)
// puts the body in place of go-openai's and hands it the decoded reply.

// wireRequest is the body sent: go-openai's members (with its omitempty
// rules and its "stream": false), and the sampling members go-openai
// drops when zero (temperature 0, top_p 0) or lacks (top_k,
// repetition_penalty, truncate_prompt_tokens).
type wireRequest struct {
	Model              string                               `json:"model"`
	Messages           []wireMessage                        `json:"messages"`
	MaxTokens          int                                  `json:"max_tokens,omitempty"`
	N                  int                                  `json:"n,omitempty"`
	Stream             bool                                 `json:"stream"`
	Stop               []string                             `json:"stop,omitempty"`
	ResponseFormat     *openai.ChatCompletionResponseFormat `json:"response_format,omitempty"`
	Seed               *int                                 `json:"seed,omitempty"`
	ChatTemplateKwargs map[string]any                       `json:"chat_template_kwargs,omitempty"`
	Temperature        *float64                             `json:"temperature,omitempty"`
	TopP               *float64                             `json:"top_p,omitempty"`
	TopK               *int                                 `json:"top_k,omitempty"`
	RepetitionPenalty  *float64                             `json:"repetition_penalty,omitempty"`
	// TruncatePromptTokens is vLLM's extension (the built-in engine's too).
	TruncatePromptTokens *int `json:"truncate_prompt_tokens,omitempty"`
	// enableThinking, when ChatTemplateKwargs is nil, is written as
	// chat_template_kwargs {"enable_thinking": ...} (what encoding/json
	// writes of that map) by appendWireRequest.
	enableThinking *bool
}

// wireMessage is a message as go-openai sends one without parts: an empty
// content is left out.
type wireMessage struct {
	Role    string `json:"role"`
	Content string `json:"content,omitempty"`
}

// wireMessages views msgs as wire messages, without a copy: the two types
// have the same fields (the conversion below fails to compile otherwise)
// and differ only in a tag. A nil slice becomes an empty one, sent as [].
func wireMessages(msgs []Message) []wireMessage {
	_ = wireMessage(Message{})
	if len(msgs) == 0 {
		return []wireMessage{}
	}
	return unsafe.Slice((*wireMessage)(unsafe.Pointer(unsafe.SliceData(msgs))), len(msgs))
}

// wireResponse is what mascot reads of a reply: decoded straight from the
// body (decodeReply), or taken from go-openai's decoding of a reply this
// decoder does not read (fromOpenAI).
type wireResponse struct {
	Choices []wireChoice `json:"choices"`
	Usage   struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
	} `json:"usage"`
}

type wireChoice struct {
	Index   int `json:"index"`
	Message struct {
		Content          string `json:"content"`
		ReasoningContent string `json:"reasoning_content"`
	} `json:"message"`
	FinishReason openai.FinishReason `json:"finish_reason"`
}

// decodeReply decodes a successful reply's body; ok is false when it is
// not one this decoder reads (go-openai then decodes it, or says why not).
// The reply is not converted to go-openai's types: their choice is several
// hundred bytes of members mascot does not read.
func decodeReply(body []byte) (w *wireResponse, ok bool) {
	if w, ok := scanReply(body); ok {
		return w, true
	}
	d := replyDecoders.Get().(*replyDecoder)
	w = new(wireResponse)
	if !d.decode(body, w) {
		return nil, false // d is dropped: it may hold the error
	}
	replyDecoders.Put(d)
	return w, true
}

// replyDecoder is a json.Decoder kept from reply to reply with its scanner
// and decoding state, which json.Unmarshal allocates afresh for each (a
// third of a reply's allocations); it reads the bodies one after another
// as one stream.
type replyDecoder struct {
	dec  *json.Decoder
	src  []byte // the unread part of the body being decoded
	read int64  // bytes of the stream handed to dec so far
}

var replyDecoders = sync.Pool{New: func() any {
	d := new(replyDecoder)
	d.dec = json.NewDecoder(d)
	return d
}}

// Read feeds dec.
func (d *replyDecoder) Read(p []byte) (int, error) {
	if len(d.src) == 0 {
		return 0, io.EOF
	}
	n := copy(p, d.src)
	d.src = d.src[n:]
	d.read += int64(n)
	return n, nil
}

// decode decodes body into v as json.Unmarshal would: one value, then
// nothing but space. What dec holds of the last body is space only.
func (d *replyDecoder) decode(body []byte, v any) bool {
	start := d.read // the stream offset of body's first byte
	d.src = body
	if d.dec.Decode(v) != nil {
		return false
	}
	end := d.dec.InputOffset() - start // where the value ends in body
	if end < 0 || end > int64(len(body)) || len(bytes.TrimLeft(body[end:], " \t\r\n")) > 0 {
		return false
	}
	d.src = nil // unread space, dropped
	return true
}

// fromOpenAI keeps what mascot reads of a reply go-openai decoded.
func fromOpenAI(o openai.ChatCompletionResponse) wireResponse {
	var w wireResponse
	w.Choices = make([]wireChoice, len(o.Choices))
	for i, c := range o.Choices {
		w.Choices[i].Index, w.Choices[i].FinishReason = c.Index, c.FinishReason
		w.Choices[i].Message.Content, w.Choices[i].Message.ReasoningContent = c.Message.Content, c.Message.ReasoningContent
	}
	w.Usage.PromptTokens, w.Usage.CompletionTokens = o.Usage.PromptTokens, o.Usage.CompletionTokens
	return w
}
