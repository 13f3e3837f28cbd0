package serve

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"net/http"

	"mascot.dev/mascot/trainer/qwen3"
	"mascot.dev/mascot/trainer/sample"
	"mascot.dev/mascot/trainer/serve/constrain"
)

// jobSpec is what both endpoints need to build a job.
type jobSpec struct {
	f           *samplingFields
	maxTokens   *int
	defaultMax  int // 0: fill the context
	topLogprobs int
}

// newJob validates the sampling fields and builds a job for prompt.
func (s *Server) newJob(ctx context.Context, spec jobSpec, b *bundle, view *qwen3.Model, prompt []int) (*job, *apiError) {
	f := spec.f
	if len(prompt) == 0 {
		return nil, badParam("prompt", "The prompt is empty.")
	}
	prompt, aerr := truncatePrompt(f.TruncatePromptTokens, b, prompt)
	if aerr != nil {
		return nil, aerr
	}
	for _, id := range prompt {
		if id < 0 || id >= b.model.Config.VocabSize {
			return nil, badParam("prompt", fmt.Sprintf("Token id %d is out of vocabulary (size %d).", id, b.model.Config.VocabSize))
		}
	}
	p := sample.Params{Temperature: 1, StopTokens: f.StopTokenIDs}
	n := 1
	if f.N != nil {
		n = *f.N
	}
	if n < 1 {
		return nil, badParam("n", "n must be at least 1.")
	}
	if aerr := s.checkN(n); aerr != nil {
		return nil, aerr
	}
	if f.Temperature != nil {
		if *f.Temperature < 0 {
			return nil, badParam("temperature", "temperature must be non-negative.")
		}
		p.Temperature = float32(*f.Temperature)
	}
	if f.TopP != nil {
		if *f.TopP <= 0 || *f.TopP > 1 {
			return nil, badParam("top_p", "top_p must be in (0, 1].")
		}
		p.TopP = float32(*f.TopP)
	}
	if f.TopK != nil {
		if *f.TopK < -1 {
			return nil, badParam("top_k", "top_k must be -1 (disable), or at least 1.")
		}
		p.TopK = max(0, *f.TopK)
	}
	if f.Seed != nil {
		p.Seed = uint64(*f.Seed)
	} else {
		var buf [8]byte
		_, _ = rand.Read(buf[:])
		p.Seed = binary.LittleEndian.Uint64(buf[:])
	}
	room := b.maxLen - len(prompt)
	switch {
	case spec.maxTokens != nil:
		p.MaxTokens = *spec.maxTokens
		if p.MaxTokens < 1 {
			return nil, badParam("max_tokens", "max_tokens must be at least 1.")
		}
	case spec.defaultMax > 0:
		p.MaxTokens = min(spec.defaultMax, room)
	default:
		p.MaxTokens = room
	}
	if room < 1 || p.MaxTokens > room {
		return nil, badParam("max_tokens", fmt.Sprintf("This model's maximum context length is %d tokens. However, you requested %d tokens (%d in the messages, %d in the completion). Please reduce the length of the messages or completion.",
			b.maxLen, len(prompt)+p.MaxTokens, len(prompt), p.MaxTokens))
	}
	j := &job{ctx: ctx, b: b, model: view, prompt: prompt, n: n, params: p, stopStrs: f.Stop,
		includeStop: f.IncludeStopStrInOutput, topLogprobs: spec.topLogprobs, out: newOutbox()}
	if rf := f.ResponseFormat; rf != nil {
		switch rf.Type {
		case "", "text":
		case "json_schema":
			if rf.JSONSchema == nil || len(rf.JSONSchema.Schema) == 0 {
				return nil, badParam("response_format", "response_format json_schema needs json_schema.schema.")
			}
			sch, err := constrain.Compile(rf.JSONSchema.Schema)
			if err != nil {
				return nil, badParam("response_format", err.Error())
			}
			if sch.MinBytes()+1 > p.MaxTokens {
				return nil, badParam("max_tokens", fmt.Sprintf("max_tokens %d is too small for the json_schema: its shortest document takes %d tokens plus the end token.", p.MaxTokens, sch.MinBytes()))
			}
			j.schema = sch
		default:
			return nil, badParam("response_format", fmt.Sprintf("response_format type %q is not supported; use json_schema.", rf.Type))
		}
	}
	return j, nil
}

// submit queues j, mapping engine errors to API errors.
func (s *Server) submit(j *job) *apiError {
	switch err := s.eng.submit(j); {
	case errors.Is(err, errQueueFull):
		return &apiError{status: http.StatusServiceUnavailable, typ: "ServiceUnavailableError",
			msg: fmt.Sprintf("The server is busy: the request queue is full (%d requests waiting, limit %d). Retry later.",
				s.eng.waiting(), s.opts.MaxQueue)}
	case err != nil:
		return engineError(err)
	}
	return nil
}

func engineError(err error) *apiError {
	if errors.Is(err, errClosed) {
		return &apiError{status: http.StatusServiceUnavailable, typ: "ServiceUnavailableError", msg: "The server is shutting down."}
	}
	return &apiError{status: http.StatusInternalServerError, typ: "InternalServerError", msg: err.Error()}
}

// choiceOut is one finished choice.
type choiceOut struct {
	text       string
	tokens     []tokenOut
	finish     string
	stopReason any
}

// collect waits for every choice of j.
func collect(ctx context.Context, j *job) ([]choiceOut, error) {
	outs := make([]choiceOut, j.n)
	left := j.n
	for left > 0 {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-j.out.signal:
		}
		for _, ev := range j.out.take() {
			if ev.err != nil {
				return nil, ev.err
			}
			o := &outs[ev.index]
			o.text += ev.text
			o.tokens = append(o.tokens, ev.tokens...)
			if ev.finish != "" {
				o.finish, o.stopReason = ev.finish, ev.stopReason
				left--
			}
		}
	}
	return outs, nil
}

// tokenText is how a token is shown in log-probs.
func (b *bundle) tokenText(id int) string {
	return string(b.tok.DecodeBytes([]int{id}))
}

// truncatePrompt applies truncate_prompt_tokens as vLLM does: the prompt's
// last k tokens are kept (the latest turns and the generation prompt, for
// a chat), -1 stands for the context length, and a k over the context
// length is refused.
func truncatePrompt(k *int, b *bundle, prompt []int) ([]int, *apiError) {
	if k == nil {
		return prompt, nil
	}
	n := *k
	switch {
	case n == -1:
		n = b.maxLen
	case n < 1:
		return nil, badParam("truncate_prompt_tokens", fmt.Sprintf("truncate_prompt_tokens must be -1 (the model's context length) or at least 1, not %d.", n))
	case n > b.maxLen:
		return nil, badParam("truncate_prompt_tokens", fmt.Sprintf("truncate_prompt_tokens value (%d) is greater than max_model_len (%d). Please, select a smaller truncation size.", n, b.maxLen))
	}
	if len(prompt) > n {
		prompt = prompt[len(prompt)-n:]
	}
	return prompt, nil
}
