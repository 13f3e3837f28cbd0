package fakevllm

import (
	"context"
	"net/http"
	"time"
)

// LogEntry is one generation request the server received (POST
// /v1/chat/completions or /v1/completions): the per-request log a test
// reconciles a client's counters with. Every such request is logged,
// whatever its fate.
type LogEntry struct {
	// RequestID is the request's X-Request-Id header ("" when absent).
	RequestID string
	Path      string
	Start     time.Time
	End       time.Time // when the handler returned (or gave up)
	Status    int       // HTTP status written; 0 when none was
	// Aborted says the handler gave up without a whole answer (the client
	// left, or the server was killed).
	Aborted bool
	// PromptTokens and CompletionTokens are the usage the server counted
	// for this request (in Counters' TokensIn and TokensOut): zero for
	// errors, stalls and broken bodies.
	PromptTokens, CompletionTokens int
}

type logKey struct{}

// Log returns a copy of the per-request log, in arrival order.
func (s *Server) Log() []LogEntry {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]LogEntry, len(s.reqlog))
	for i, e := range s.reqlog {
		out[i] = *e
	}
	return out
}

// statusWriter remembers the status a handler wrote.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// logged wraps a generation handler: the request gets a log entry, which
// the handler's usage fills and which is closed when the handler returns
// or panics (http.ErrAbortHandler: the client left or the server died).
func (s *Server) logged(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		e := &LogEntry{RequestID: r.Header.Get("X-Request-Id"), Path: r.URL.Path, Start: time.Now()}
		s.mu.Lock()
		s.reqlog = append(s.reqlog, e)
		s.mu.Unlock()
		sw := &statusWriter{ResponseWriter: w}
		aborted := true
		defer func() {
			s.mu.Lock()
			e.End, e.Status, e.Aborted = time.Now(), sw.status, aborted
			s.mu.Unlock()
		}()
		h(sw, r.WithContext(context.WithValue(r.Context(), logKey{}, e)))
		aborted = false
	}
}

// usage counts a completion's usage, globally (when its body goes out
// whole) and in the request's log entry.
func (s *Server) usage(r *http.Request, f Fault, in, out int) {
	if f == FaultTruncated || f == FaultMalformed {
		return
	}
	s.mu.Lock()
	s.tokIn += int64(in)
	s.tokOut += int64(out)
	if e, ok := r.Context().Value(logKey{}).(*LogEntry); ok {
		e.PromptTokens, e.CompletionTokens = in, out
	}
	s.mu.Unlock()
}
