package serve

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"mascot.dev/mascot/trainer/tokenizer"
)

func (s *Server) handleChat(w http.ResponseWriter, r *http.Request) {
	var req chatRequest
	if aerr := decodeBody(r, &req); aerr != nil {
		writeError(w, aerr)
		return
	}
	b, view, aerr := s.resolve(req.Model)
	if aerr != nil {
		writeError(w, aerr)
		return
	}
	prompt, aerr := chatPrompt(b, &req)
	if aerr != nil {
		writeError(w, aerr)
		return
	}
	maxTok := req.MaxCompletionTokens
	if maxTok == nil {
		maxTok = req.MaxTokens
	}
	top := 0
	if req.Logprobs && req.TopLogprobs != nil {
		if *req.TopLogprobs < 0 || *req.TopLogprobs > 20 {
			writeError(w, badParam("top_logprobs", "top_logprobs must be between 0 and 20."))
			return
		}
		top = *req.TopLogprobs
	}
	j, aerr := s.newJob(r.Context(), jobSpec{f: &req.samplingFields, maxTokens: maxTok, topLogprobs: top}, b, view, prompt)
	if aerr != nil {
		writeError(w, aerr)
		return
	}
	release, aerr := s.admitJobs(r, b, []*job{j})
	if aerr != nil {
		writeError(w, aerr)
		return
	}
	defer release()
	if aerr := s.submit(j); aerr != nil {
		writeError(w, aerr)
		return
	}
	name := req.Model
	if name == "" {
		name = b.id
	}
	meta := respMeta{id: "chatcmpl-" + randomID(), created: time.Now().Unix(), model: name}
	if req.Stream {
		s.streamChat(w, r, j, meta, req.Logprobs, req.StreamOptions != nil && req.StreamOptions.IncludeUsage)
		return
	}
	outs, err := collect(r.Context(), j)
	if err != nil {
		if r.Context().Err() == nil {
			writeError(w, engineError(err))
		}
		return
	}
	choices := make([]map[string]any, len(outs))
	completion := 0
	for i, o := range outs {
		completion += len(o.tokens)
		c := map[string]any{"index": i, "finish_reason": o.finish, "stop_reason": o.stopReason, "logprobs": nil,
			"message": map[string]any{"role": "assistant", "content": o.text, "tool_calls": []any{}}}
		if req.Logprobs {
			c["logprobs"] = map[string]any{"content": chatLogprobs(b, o.tokens)}
		}
		choices[i] = c
	}
	writeJSON(w, http.StatusOK, map[string]any{"id": meta.id, "object": "chat.completion", "created": meta.created,
		"model": meta.model, "choices": choices, "usage": usage{len(j.prompt), completion, len(j.prompt) + completion}})
}

type respMeta struct {
	id      string
	created int64
	model   string
}

// chatPrompt renders the messages with the Qwen3 chat template and
// encodes them.
func chatPrompt(b *bundle, req *chatRequest) ([]int, *apiError) {
	if len(req.Messages) == 0 {
		return nil, badParam("messages", "messages must not be empty.")
	}
	msgs := make([]tokenizer.Message, len(req.Messages))
	for i, m := range req.Messages {
		text, err := messageText(m.Content)
		if err != nil {
			return nil, badParam("messages", fmt.Sprintf("messages[%d].content: %v", i, err))
		}
		msgs[i] = tokenizer.Message{Role: m.Role, Content: text, ReasoningContent: m.ReasoningContent}
		for _, tc := range m.ToolCalls {
			args, _ := json.Marshal(tc.Function.Arguments)
			msgs[i].ToolCalls = append(msgs[i].ToolCalls, tokenizer.ToolCall{Name: tc.Function.Name, Arguments: args})
		}
	}
	opts := tokenizer.TemplateOptions{AddGenerationPrompt: true, EnableThinking: true, Tools: req.Tools}
	if v, ok := req.ChatTemplateKwargs["enable_thinking"]; ok {
		on, isBool := v.(bool)
		if !isBool {
			return nil, badParam("chat_template_kwargs", "chat_template_kwargs.enable_thinking must be a boolean.")
		}
		opts.EnableThinking = on
	}
	if v, ok := req.ChatTemplateKwargs["add_generation_prompt"].(bool); ok {
		opts.AddGenerationPrompt = v
	}
	text, err := tokenizer.ApplyChatTemplate(msgs, opts)
	if err != nil {
		return nil, badParam("messages", err.Error())
	}
	if aerr := b.checkPromptBytes(len(text), req.TruncatePromptTokens); aerr != nil {
		return nil, aerr
	}
	return b.tok.Encode(text), nil
}

// messageText accepts a string, null, or a list of {"type":"text"} parts.
func messageText(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, nil
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", fmt.Errorf("must be a string or a list of text parts")
	}
	var sb strings.Builder
	for _, p := range parts {
		if p.Type != "text" {
			return "", fmt.Errorf("content part type %q is not supported", p.Type)
		}
		sb.WriteString(p.Text)
	}
	return sb.String(), nil
}

// chatLogprobs renders tokens in the chat logprobs.content shape.
func chatLogprobs(b *bundle, toks []tokenOut) []map[string]any {
	out := make([]map[string]any, 0, len(toks))
	for _, t := range toks {
		top := make([]map[string]any, 0, len(t.Top))
		for _, x := range t.Top {
			s := b.tokenText(x.ID)
			top = append(top, map[string]any{"token": s, "logprob": x.LogProb, "bytes": byteList(s)})
		}
		s := b.tokenText(t.ID)
		out = append(out, map[string]any{"token": s, "logprob": t.LogProb, "bytes": byteList(s), "top_logprobs": top})
	}
	return out
}

// byteList renders bytes as a JSON list of numbers, as OpenAI does.
func byteList(s string) []int {
	l := make([]int, len(s))
	for i := range len(s) {
		l[i] = int(s[i])
	}
	return l
}
