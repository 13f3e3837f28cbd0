package serve

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
)

// limitBodies caps every request body at max bytes; reading past the cap
// fails with *http.MaxBytesError, which decodeBody turns into a 400.
func limitBodies(next http.Handler, max int64) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Body = http.MaxBytesReader(w, r.Body, max)
		next.ServeHTTP(w, r)
	})
}

// decodeBody decodes the JSON body of r into v; a body over the server's
// limit and malformed JSON are both 400s that say which.
func decodeBody(r *http.Request, v any) *apiError {
	err := json.NewDecoder(r.Body).Decode(v)
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		return badRequest(fmt.Sprintf("The request body is larger than this server's limit of %d bytes (mascot serve --max-body-bytes). Send a shorter prompt.", tooBig.Limit))
	case err != nil:
		return badRequest("JSON decode error: " + err.Error())
	}
	return nil
}

// checkN refuses n beyond Options.MaxN.
func (s *Server) checkN(n int) *apiError {
	if n > s.opts.MaxN {
		return badParam("n", fmt.Sprintf("n must be at most %d (mascot serve --max-n); you requested %d.", s.opts.MaxN, n))
	}
	return nil
}

// requestBudget is the KV-cache tokens a request may hold:
// Options.MaxRequestTokens, or DefaultRequestContexts contexts of b.
func (s *Server) requestBudget(b *bundle) int {
	if s.opts.MaxRequestTokens > 0 {
		return s.opts.MaxRequestTokens
	}
	return DefaultRequestContexts * b.maxLen
}

// checkBudget refuses jobs whose choices together would hold more than the
// request budget: the sum of n × (prompt + max_tokens).
func (s *Server) checkBudget(b *bundle, jobs []*job) *apiError {
	budget := s.requestBudget(b)
	total := 0
	for _, j := range jobs {
		total += j.n * (len(j.prompt) + j.params.MaxTokens)
		if total > budget {
			break
		}
	}
	if total > budget {
		return badParam("max_tokens", fmt.Sprintf("This request needs up to %d tokens of cache (n × (prompt + max_tokens), summed over its prompts), more than this server's per-request limit of %d (mascot serve --max-request-tokens). Reduce n, max_tokens or the number of prompts.", total, budget))
	}
	return nil
}

// admitJobs checks jobs against the per-request budget and reserves their
// cache tokens in the process's budget; the request's body share is given
// back (its memory is now the jobs'). Call release when the jobs are done.
func (s *Server) admitJobs(r *http.Request, b *bundle, jobs []*job) (release func(), aerr *apiError) {
	defer bodyDone(r)
	if aerr := s.checkBudget(b, jobs); aerr != nil {
		return nil, aerr
	}
	return s.takeTokens(b, jobs)
}

// checkPromptBytes refuses, before tokenizing, a prompt of n bytes that
// cannot fit the context whatever its tokens: each token stands for at
// most MaxBytesPerToken bytes. A 4 MiB prompt is so refused without the
// tens of megabytes its token ids would take. A request that asks for
// truncate_prompt_tokens may send a longer prompt (the body limit bounds
// it): only its last tokens are kept.
func (b *bundle) checkPromptBytes(n int, truncate *int) *apiError {
	per := b.tok.MaxBytesPerToken()
	if truncate != nil || per <= 0 || n <= b.maxLen*per {
		return nil
	}
	return badParam("prompt", fmt.Sprintf("This model's maximum context length is %d tokens. However, your prompt is %d bytes, more than %d tokens can hold. Please reduce the length of the prompt.",
		b.maxLen, n, b.maxLen))
}
