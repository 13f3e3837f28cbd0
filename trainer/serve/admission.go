package serve

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"
)

// budget is a process-wide amount (bytes or tokens) that requests take a
// share of and give back; a request whose share does not fit is refused
// at once (503), never queued, so a burst cannot pile up memory waiting.
type budget struct {
	mu   sync.Mutex
	used int64
}

// take reserves n of limit, or reports false.
func (b *budget) take(n, limit int64) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.used+n > limit && b.used > 0 {
		return false
	}
	b.used += n
	return true
}

func (b *budget) give(n int64) {
	b.mu.Lock()
	b.used -= n
	b.mu.Unlock()
}

func (b *budget) inUse() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.used
}

// busy is the 503 a request over a process budget gets (writeError adds
// Retry-After).
func busy(format string, args ...any) *apiError {
	return &apiError{status: http.StatusServiceUnavailable, typ: "ServiceUnavailableError", msg: fmt.Sprintf(format, args...)}
}

type bodyKey struct{}

// admitBodies takes each body's share of Options.MaxBodyBytesInFlight
// before the handler reads it (503 past the budget), and bounds the time
// its reading may take (Options.BodyTimeout): a client that sends headers
// and then one byte a second is cut off. The share is given back when the
// handler calls bodyDone (its job is queued) or returns.
func (s *Server) admitBodies(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			next.ServeHTTP(w, r)
			return
		}
		share := s.opts.MaxBodyBytes
		if r.ContentLength >= 0 && r.ContentLength < share {
			share = r.ContentLength
		}
		if !s.bodies.take(share, s.opts.MaxBodyBytesInFlight) {
			writeError(w, busy("The server is busy: %d bytes of request bodies are being read, and this one's %d would pass the limit of %d (mascot serve --max-inflight-body-bytes). Retry later.",
				s.bodies.inUse(), share, s.opts.MaxBodyBytesInFlight))
			return
		}
		var once sync.Once
		done := func() { once.Do(func() { s.bodies.give(share) }) }
		defer done()
		// The deadline covers reading the body only: it is lifted once
		// the body is read, so a long generation is not cut off.
		rc := http.NewResponseController(w)
		_ = rc.SetReadDeadline(time.Now().Add(s.opts.BodyTimeout))
		r.Body = &deadlineBody{ReadCloser: r.Body, lift: func() { _ = rc.SetReadDeadline(time.Time{}) }}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), bodyKey{}, done)))
	})
}

// bodyDone gives back r's share of the body budget: its body has become a
// queued job, whose memory the token budget counts.
func bodyDone(r *http.Request) {
	if done, ok := r.Context().Value(bodyKey{}).(func()); ok {
		done()
	}
}

// deadlineBody lifts the body's read deadline when the body is read to
// its end, and only then: after a timeout the deadline must stay, or the
// server would go on reading the rest of a trickled body to reuse the
// connection.
type deadlineBody struct {
	io.ReadCloser
	lift   func()
	lifted bool
}

// Read implements io.Reader.
func (b *deadlineBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if errors.Is(err, io.EOF) && !b.lifted {
		b.lifted = true
		b.lift()
	}
	return n, err
}

// tokensLimit is Options.MaxTokensInFlight, or DefaultRequestsInFlight
// requests of the per-request budget of b.
func (s *Server) tokensLimit(b *bundle) int64 {
	if s.opts.MaxTokensInFlight > 0 {
		return int64(s.opts.MaxTokensInFlight)
	}
	return int64(DefaultRequestsInFlight * s.requestBudget(b))
}

// takeTokens reserves the cache tokens of jobs (n × (prompt + max_tokens)
// each) in the process's token budget; release gives them back. Past the
// budget it is a 503.
func (s *Server) takeTokens(b *bundle, jobs []*job) (release func(), aerr *apiError) {
	var n int64
	for _, j := range jobs {
		n += int64(j.n) * int64(len(j.prompt)+j.params.MaxTokens)
	}
	limit := s.tokensLimit(b)
	if !s.tokens.take(n, limit) {
		return nil, busy("The server is busy: requests holding %d cache tokens are queued or running, and this one's %d would pass the limit of %d (mascot serve --max-inflight-tokens). Retry later.",
			s.tokens.inUse(), n, limit)
	}
	var once sync.Once
	return func() { once.Do(func() { s.tokens.give(n) }) }, nil
}
