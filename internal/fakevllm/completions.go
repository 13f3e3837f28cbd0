package fakevllm

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

type completionRequest struct {
	Model     string          `json:"model"`
	Prompt    json.RawMessage `json:"prompt"` // string, []string, []int or [][]int
	N         *int            `json:"n"`
	Seed      *int64          `json:"seed"`
	MaxTokens *int            `json:"max_tokens"`
	Echo      bool            `json:"echo"`
}

// prompts decodes the prompt forms vLLM accepts; token ids become "<id>".
func (c completionRequest) prompts() ([]string, bool) {
	var one string
	if json.Unmarshal(c.Prompt, &one) == nil {
		return []string{one}, true
	}
	var many []string
	if json.Unmarshal(c.Prompt, &many) == nil && len(many) > 0 {
		return many, true
	}
	var ids []int
	if json.Unmarshal(c.Prompt, &ids) == nil && len(ids) > 0 {
		return []string{fmt.Sprint(ids)}, true
	}
	var idss [][]int
	if json.Unmarshal(c.Prompt, &idss) == nil && len(idss) > 0 {
		out := make([]string, len(idss))
		for i, x := range idss {
			out[i] = fmt.Sprint(x)
		}
		return out, true
	}
	return nil, false
}

func (s *Server) handleCompletions(w http.ResponseWriter, r *http.Request) {
	var req completionRequest
	if err := decodeBody(r, &req); err != nil {
		s.writeError(w, http.StatusBadRequest, "BadRequestError", "JSON decode error: "+err.Error(), nil)
		return
	}
	prompts, ok := req.prompts()
	if !ok {
		s.writeError(w, http.StatusBadRequest, "BadRequestError", "prompt must be a string, a list of strings or token ids",
			strp("prompt"))
		return
	}
	if !s.knownModel(req.Model) {
		s.writeError(w, http.StatusNotFound, "NotFoundError", fmt.Sprintf("The model `%s` does not exist.", req.Model),
			strp("model"))
		return
	}
	f, handled := s.preFault(w, r, false)
	if handled {
		return
	}
	n := 1
	if req.N != nil && *req.N > 0 {
		n = *req.N
	}
	maxTok := 0
	if req.MaxTokens != nil {
		maxTok = *req.MaxTokens
	}
	type choice struct {
		Index        int    `json:"index"`
		Text         string `json:"text"`
		Logprobs     any    `json:"logprobs"`
		FinishReason string `json:"finish_reason"`
		StopReason   any    `json:"stop_reason"`
	}
	var choices []choice
	promptTok, compTok := 0, 0
	for pi, pr := range prompts {
		p := &prompt{model: req.Model, all: pr, seed: req.Seed}
		promptTok += countWords(pr)
		for i := 0; i < n; i++ {
			text, fin := truncateWords(p.sentence(i), maxTok)
			if f == FaultEmpty {
				text, fin = "", "stop"
			}
			if req.Echo {
				text = pr + text
			}
			compTok += countWords(text)
			choices = append(choices, choice{Index: pi*n + i, Text: text, FinishReason: fin})
		}
	}
	model := req.Model
	if model == "" {
		model = s.opts.Model
	}
	body := map[string]any{
		"id": "cmpl-" + (&prompt{all: string(req.Prompt)}).id(), "object": "text_completion", "created": time.Now().Unix(),
		"model": model, "choices": choices,
		"usage": map[string]any{"prompt_tokens": promptTok, "completion_tokens": compTok, "total_tokens": promptTok + compTok},
	}
	s.usage(r, f, promptTok, compTok)
	s.send(w, body, f)
}
