package serve

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

func (s *Server) handleCompletions(w http.ResponseWriter, r *http.Request) {
	var req completionRequest
	if aerr := decodeBody(r, &req); aerr != nil {
		writeError(w, aerr)
		return
	}
	b, view, aerr := s.resolve(req.Model)
	if aerr != nil {
		writeError(w, aerr)
		return
	}
	if n := countNumbers(req.Prompt); n > s.requestBudget(b) {
		writeError(w, badParam("prompt", fmt.Sprintf("The prompt holds %d token ids, more than this server's per-request limit of %d tokens (mascot serve --max-request-tokens).", n, s.requestBudget(b))))
		return
	}
	prompts, aerr := parsePrompts(req.Prompt, b, req.TruncatePromptTokens)
	if aerr != nil {
		writeError(w, aerr)
		return
	}
	top := 0
	if req.Logprobs != nil {
		if *req.Logprobs < 0 || *req.Logprobs > 20 {
			writeError(w, badParam("logprobs", "logprobs must be between 0 and 20."))
			return
		}
		top = *req.Logprobs
	}
	if req.Echo && req.Logprobs != nil {
		writeError(w, badParam("echo", "echo together with logprobs is not supported."))
		return
	}
	if req.Stream && len(prompts) != 1 {
		writeError(w, badParam("stream", "streaming supports a single prompt."))
		return
	}
	spec := jobSpec{f: &req.samplingFields, maxTokens: req.MaxTokens, defaultMax: 16, topLogprobs: top}
	jobs := make([]*job, len(prompts))
	for i, p := range prompts {
		if jobs[i], aerr = s.newJob(r.Context(), spec, b, view, p); aerr != nil {
			writeError(w, aerr)
			return
		}
	}
	release, aerr := s.admitJobs(r, b, jobs)
	if aerr != nil {
		writeError(w, aerr)
		return
	}
	defer release()
	for _, j := range jobs {
		if aerr := s.submit(j); aerr != nil {
			writeError(w, aerr)
			return
		}
	}
	name := req.Model
	if name == "" {
		name = b.id
	}
	meta := respMeta{id: "cmpl-" + randomID(), created: time.Now().Unix(), model: name}
	if req.Stream {
		s.streamCompletion(w, r, jobs[0], meta, &req)
		return
	}
	var choices []map[string]any
	var u usage
	for pi, j := range jobs {
		outs, err := collect(r.Context(), j)
		if err != nil {
			if r.Context().Err() == nil {
				writeError(w, engineError(err))
			}
			return
		}
		u.PromptTokens += len(j.prompt)
		for ci, o := range outs {
			u.CompletionTokens += len(o.tokens)
			text := o.text
			if req.Echo {
				text = b.tok.DecodeSkipSpecial(j.prompt) + text
			}
			c := map[string]any{"index": pi*j.n + ci, "text": text, "finish_reason": o.finish,
				"stop_reason": o.stopReason, "logprobs": nil}
			if req.Logprobs != nil {
				c["logprobs"] = completionLogprobs(b, o.tokens, req.ReturnTokensAsTokenIDs, top)
			}
			if req.ReturnTokenIDs {
				c["prompt_token_ids"] = j.prompt
				ids := make([]int, len(o.tokens))
				for k, t := range o.tokens {
					ids[k] = t.ID
				}
				c["token_ids"] = ids
			}
			choices = append(choices, c)
		}
	}
	u.TotalTokens = u.PromptTokens + u.CompletionTokens
	writeJSON(w, http.StatusOK, map[string]any{"id": meta.id, "object": "text_completion", "created": meta.created,
		"model": meta.model, "choices": choices, "usage": u})
}

// parsePrompts accepts a string, a list of strings, a list of token ids or
// a list of lists of token ids; truncate is the request's
// truncate_prompt_tokens (checkPromptBytes).
func parsePrompts(raw json.RawMessage, b *bundle, truncate *int) ([][]int, *apiError) {
	var one string
	if json.Unmarshal(raw, &one) == nil {
		if aerr := b.checkPromptBytes(len(one), truncate); aerr != nil {
			return nil, aerr
		}
		return [][]int{b.tok.Encode(one)}, nil
	}
	var ids []int
	if json.Unmarshal(raw, &ids) == nil && len(ids) > 0 {
		return [][]int{ids}, nil
	}
	var many []string
	if json.Unmarshal(raw, &many) == nil && len(many) > 0 {
		out := make([][]int, len(many))
		for _, s := range many {
			if aerr := b.checkPromptBytes(len(s), truncate); aerr != nil {
				return nil, aerr
			}
		}
		for i, s := range many {
			out[i] = b.tok.Encode(s)
		}
		return out, nil
	}
	var lists [][]int
	if json.Unmarshal(raw, &lists) == nil && len(lists) > 0 {
		return lists, nil
	}
	return nil, badParam("prompt", "prompt must be a string, a list of strings, a list of token ids or a list of such lists")
}

// completionLogprobs renders the legacy completions logprobs object.
func completionLogprobs(b *bundle, toks []tokenOut, asIDs bool, top int) map[string]any {
	name := func(id int) string {
		if asIDs {
			return fmt.Sprintf("token_id:%d", id)
		}
		return b.tokenText(id)
	}
	tokens := make([]string, len(toks))
	lps := make([]float32, len(toks))
	offsets := make([]int, len(toks))
	tops := make([]map[string]float32, len(toks))
	off := 0
	for i, t := range toks {
		tokens[i], lps[i], offsets[i] = name(t.ID), t.LogProb, off
		off += len(b.spell(t.ID))
		m := map[string]float32{}
		for _, x := range t.Top {
			m[name(x.ID)] = x.LogProb
		}
		if top > 0 {
			m[tokens[i]] = t.LogProb
		}
		tops[i] = m
	}
	out := map[string]any{"tokens": tokens, "token_logprobs": lps, "text_offset": offsets, "top_logprobs": tops}
	if top == 0 {
		out["top_logprobs"] = nil
	}
	return out
}

func (s *Server) streamCompletion(w http.ResponseWriter, r *http.Request, j *job, m respMeta, req *completionRequest) {
	out := newSSE(w)
	withUsage := req.StreamOptions != nil && req.StreamOptions.IncludeUsage
	completion := 0
	err := pump(r, j, func(ev event) {
		completion += len(ev.tokens)
		c := map[string]any{"index": ev.index, "text": ev.text, "logprobs": nil, "finish_reason": nil}
		if ev.finish != "" {
			c["finish_reason"], c["stop_reason"] = ev.finish, ev.stopReason
		}
		if req.Logprobs != nil {
			c["logprobs"] = completionLogprobs(j.b, ev.tokens, req.ReturnTokensAsTokenIDs, *req.Logprobs)
		}
		chunk := map[string]any{"id": m.id, "object": "text_completion", "created": m.created, "model": m.model,
			"choices": []any{c}}
		if withUsage {
			chunk["usage"] = nil
		}
		out.send(chunk)
	})
	if err != nil {
		out.fail(err)
		return
	}
	if withUsage {
		out.send(map[string]any{"id": m.id, "object": "text_completion", "created": m.created, "model": m.model,
			"choices": []any{}, "usage": usage{len(j.prompt), completion, len(j.prompt) + completion}})
	}
	out.done()
}

// countNumbers counts the numbers in raw JSON outside strings: the token
// ids of a prompt given as ids, counted before they are decoded, so that a
// body of two million ids is refused without the 16 MB their ints take.
func countNumbers(raw json.RawMessage) int {
	n, inNum, inStr, esc := 0, false, false, false
	for _, c := range raw {
		switch {
		case inStr:
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				inStr = false
			}
		case c == '"':
			inStr, inNum = true, false
		case c >= '0' && c <= '9':
			if !inNum {
				n++
			}
			inNum = true
		case c == '-' || c == '.' || c == 'e' || c == 'E' || c == '+':
		default:
			inNum = false
		}
	}
	return n
}
