package fakevllm

import (
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// Server is a running fake vLLM server.
type Server struct {
	hs   *httptest.Server
	opts Options

	killed   chan struct{}
	killOnce sync.Once

	mu       sync.Mutex
	rng      *rand.Rand
	script   []Fault
	adapters map[string]string // name -> path
	served   map[string]int64
	faults   map[Fault]int64
	tokIn    int64
	tokOut   int64
	records  []Recorded
	reqlog   []*LogEntry
}

// Recorded is one request the server received (with Options.Record).
type Recorded struct {
	Time          time.Time
	Method, Path  string
	Body          []byte
	Authorization string
}

// Counters are what the server served and injected.
type Counters struct {
	Served map[string]int64 // by path, every request that reached a handler
	Faults map[Fault]int64  // by fault, each injected fault
	// TokensIn and TokensOut sum the usage of the completions answered in
	// full (200 with a whole, well-formed body).
	TokensIn, TokensOut int64
}

// Start starts a server on 127.0.0.1. With a non-nil t it is closed when
// the test ends.
func Start(t testing.TB, opts Options) *Server {
	opts = opts.withDefaults()
	s := &Server{opts: opts, killed: make(chan struct{}), adapters: map[string]string{},
		served: map[string]int64{}, faults: map[Fault]int64{},
		rng:    rand.New(rand.NewPCG(opts.Seed, opts.Seed^0x5851f42d4c957f2d)),
		script: append([]Fault(nil), opts.Script...)}
	for n, p := range opts.Adapters {
		s.adapters[n] = p
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusOK) })
	mux.HandleFunc("GET /v1/models", s.auth(s.handleModels))
	mux.HandleFunc("POST /v1/chat/completions", s.logged(s.auth(s.handleChat)))
	mux.HandleFunc("POST /v1/completions", s.logged(s.auth(s.handleCompletions)))
	if !opts.DisableRuntimeLoRA {
		mux.HandleFunc("POST /v1/load_lora_adapter", s.auth(s.handleLoad))
		mux.HandleFunc("POST /v1/unload_lora_adapter", s.auth(s.handleUnload))
	}
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusNotFound, map[string]string{"detail": "Not Found"})
	})
	s.hs = httptest.NewServer(s.count(mux))
	if t != nil {
		t.Cleanup(s.Close)
	}
	return s
}

// URL returns the base URL, ending in /v1.
func (s *Server) URL() string { return s.hs.URL + "/v1" }

// Close stops the server and waits for its handlers.
func (s *Server) Close() {
	s.killOnce.Do(func() { close(s.killed) })
	s.hs.Close()
}

// Kill drops every connection at once and stops accepting new ones, as a
// crashed server would: in-flight requests see a reset or EOF, later ones a
// refused connection.
func (s *Server) Kill() {
	s.killOnce.Do(func() { close(s.killed) })
	_ = s.hs.Listener.Close()
	s.hs.CloseClientConnections()
}

// SetFaults replaces the fault probabilities (e.g. mid-run).
func (s *Server) SetFaults(f Faults) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if f.RetryAfter <= 0 {
		f.RetryAfter = time.Second
	}
	if f.StallFor <= 0 {
		f.StallFor = time.Minute
	}
	s.opts.Faults = f
}

// SetLatency replaces the latency model.
func (s *Server) SetLatency(l Latency) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.opts.Latency = l
}

// Counters returns a snapshot of the counters.
func (s *Server) Counters() Counters {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := Counters{Served: map[string]int64{}, Faults: map[Fault]int64{}, TokensIn: s.tokIn, TokensOut: s.tokOut}
	for k, v := range s.served {
		c.Served[k] = v
	}
	for k, v := range s.faults {
		c.Faults[k] = v
	}
	return c
}

// Requests returns the recorded requests (Options.Record).
func (s *Server) Requests() []Recorded {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Recorded(nil), s.records...)
}

// Adapters returns the loaded adapters, name -> path.
func (s *Server) Adapters() map[string]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]string{}
	for k, v := range s.adapters {
		out[k] = v
	}
	return out
}

// count counts and records requests before routing.
func (s *Server) count(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body []byte
		if s.opts.Record && r.Body != nil {
			body, _ = io.ReadAll(r.Body)
			r.Body = io.NopCloser(strings.NewReader(string(body)))
		}
		s.mu.Lock()
		s.served[r.URL.Path]++
		if s.opts.Record {
			s.records = append(s.records, Recorded{Time: time.Now(), Method: r.Method, Path: r.URL.Path,
				Body: body, Authorization: r.Header.Get("Authorization")})
		}
		s.mu.Unlock()
		h.ServeHTTP(w, r)
	})
}

// auth enforces Options.APIKey as vLLM's --api-key does.
func (s *Server) auth(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if s.opts.APIKey != "" && r.Header.Get("Authorization") != "Bearer "+s.opts.APIKey {
			writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "Unauthorized"})
			return
		}
		h(w, r)
	}
}

// drawFault picks the fault for one generation request.
func (s *Server) drawFault(directive bool) (Fault, Faults) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f := s.opts.Faults
	if len(s.script) > 0 {
		x := s.script[0]
		s.script = s.script[1:]
		if x != FaultNone {
			s.faults[x]++
		}
		return x, f
	}
	u := s.rng.Float64()
	for _, c := range []struct {
		p float64
		f Fault
	}{{f.RateLimit, FaultRateLimit}, {f.ServerError, FaultServerError}, {f.Unavailable, FaultUnavailable},
		{f.Stall, FaultStall}, {f.Truncated, FaultTruncated}, {f.Malformed, FaultMalformed}, {f.Empty, FaultEmpty}} {
		if u < c.p {
			s.faults[c.f]++
			return c.f, f
		}
		u -= c.p
	}
	if directive && f.GarbageDirective > 0 && s.rng.Float64() < f.GarbageDirective {
		s.faults[FaultGarbageDirective]++
		return FaultGarbageDirective, f
	}
	return FaultNone, f
}

// delay draws a latency.
func (s *Server) delay() time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	l := s.opts.Latency
	d := l.Base
	if l.Jitter > 0 {
		if l.Exponential {
			d += time.Duration(s.rng.ExpFloat64() * float64(l.Jitter))
		} else {
			d += time.Duration(s.rng.Int64N(int64(l.Jitter)))
		}
	}
	return d
}

// wait sleeps d unless the client leaves or the server is killed; then the
// handler aborts, dropping the connection.
func (s *Server) wait(r *http.Request, d time.Duration) {
	if d <= 0 {
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-r.Context().Done():
		panic(http.ErrAbortHandler)
	case <-s.killed:
		panic(http.ErrAbortHandler)
	}
}
