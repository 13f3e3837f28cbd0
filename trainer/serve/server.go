package serve

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sort"
	"sync"
	"time"

	"mascot.dev/mascot/internal/httpguard"
	"mascot.dev/mascot/trainer/qwen3"
	"mascot.dev/mascot/trainer/tokenizer"
)

// Server is an OpenAI-compatible HTTP server over the Go engine. It is
// safe for concurrent use.
type Server struct {
	opts   Options
	log    *slog.Logger
	eng    *engine
	mux    http.Handler // the routes, behind the admission budget
	loadMu sync.Mutex   // serialises model and adapter loading

	bodies budget // bytes of request bodies being read (Options.MaxBodyBytesInFlight)
	tokens budget // cache tokens of queued and running requests (Options.MaxTokensInFlight)

	mu       sync.RWMutex
	base     *bundle
	adapters map[string]*adapter

	hsMu sync.Mutex
	hs   *http.Server
}

// New loads the model of opts.ModelDir and its adapters and starts the
// engine; call Start to listen, or mount Handler yourself.
func New(opts Options) (*Server, error) {
	opts = opts.withDefaults()
	b, err := loadBundle(opts.ModelDir, opts.ModelID, opts.MaxModelLen)
	if err != nil {
		return nil, err
	}
	return newServer(opts, b)
}

// NewFromModel serves an in-memory model with tok; dir is reported as the
// model's root and id defaults to it.
func NewFromModel(m *qwen3.Model, tok *tokenizer.Tokenizer, dir string, opts Options) (*Server, error) {
	opts = opts.withDefaults()
	return newServer(opts, newBundle(m, tok, dir, opts.ModelID, opts.MaxModelLen))
}

func newServer(opts Options, b *bundle) (*Server, error) {
	if opts.AdapterUpdates && opts.Token == "" {
		return nil, errors.New("serving: adapter updates need a token (mascot serve --api-key-env), so that no other program can swap the adapters")
	}
	s := &Server{opts: opts, log: opts.Logger, base: b, adapters: map[string]*adapter{}}
	names := make([]string, 0, len(opts.Adapters))
	for n := range opts.Adapters {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		a, err := loadAdapter(b.model, n, opts.Adapters[n])
		if err != nil {
			return nil, fmt.Errorf("loading adapter %s: %w", n, err)
		}
		s.adapters[n] = a
	}
	s.eng = newEngine(opts.MaxQueue, opts.MaxBatch, opts.PrefillChunk, opts.PrefixCacheBytes,
		func() bool { return s.bodies.inUse() > 0 })
	s.mux = s.routes()
	return s, nil
}

// Handler returns the HTTP handler (every route under /v1, plus /health
// and /metrics) behind the request guard, for a server mounted on a
// loopback address (any loopback Host is accepted); Start guards with the
// bound address instead.
func (s *Server) Handler() http.Handler { return s.guarded(nil) }

// guarded puts the routes behind the request guard every mascot server
// shares (internal/httpguard): Host must be one of hosts (empty: any
// loopback host), a cross-origin request of any method is refused, and with
// Options.Token every route but /health needs it.
func (s *Server) guarded(hosts []string) http.Handler {
	if len(hosts) > 0 {
		hosts = append(hosts, s.opts.AllowedHosts...)
	}
	g := httpguard.New(httpguard.Options{Hosts: hosts, AllMethods: true, Token: s.opts.Token,
		Open: func(r *http.Request) bool { return r.URL.Path == "/health" },
		Refuse: func(w http.ResponseWriter, status int, msg string) {
			typ := "PermissionDeniedError"
			if status == http.StatusUnauthorized {
				typ = "AuthenticationError"
			}
			writeError(w, &apiError{status: status, typ: typ, msg: msg})
		}})
	return g.Wrap(s.mux)
}

// Start listens on Options.Addr and serves in the background; the base URL
// it returns ends in /v1.
func (s *Server) Start() (string, error) {
	s.hsMu.Lock()
	defer s.hsMu.Unlock()
	if s.hs != nil {
		return "", errors.New("starting server: already started")
	}
	ln, err := net.Listen("tcp", s.opts.Addr)
	if err != nil {
		return "", fmt.Errorf("starting server: %w", err)
	}
	// Headers within headerTimeout; each body within Options.BodyTimeout
	// (admitBodies); an idle keep-alive connection is closed.
	s.hs = &http.Server{Handler: s.guarded(httpguard.BoundHosts(s.opts.Addr, ln.Addr().String())),
		ReadHeaderTimeout: headerTimeout, IdleTimeout: 2 * time.Minute}
	go func() {
		if err := s.hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.log.Error("serving", "err", err)
		}
	}()
	url := "http://" + ln.Addr().String() + "/v1"
	s.log.Info("serving", "model", s.ModelID(), "url", url)
	return url, nil
}

// Close stops listening, fails the queued and running requests and stops
// the engine.
func (s *Server) Close() error {
	s.hsMu.Lock()
	hs := s.hs
	s.hsMu.Unlock()
	s.eng.close()
	if hs != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := hs.Shutdown(ctx); err != nil {
			return fmt.Errorf("closing server: %w", err)
		}
	}
	return nil
}

// ModelID is the served name of the base model.
func (s *Server) ModelID() string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.base.id
}

// LoadModel replaces the base model with the checkpoint in dir (the
// tokenizer is chosen as for Options.ModelDir) and re-applies every loaded
// adapter to it. Requests already running finish on the old model. The
// served name stays Options.ModelID, or becomes dir when that is empty.
func (s *Server) LoadModel(dir string) error {
	s.loadMu.Lock()
	defer s.loadMu.Unlock()
	b, err := loadBundle(dir, s.opts.ModelID, s.opts.MaxModelLen)
	if err != nil {
		return err
	}
	s.mu.RLock()
	old := s.adapters
	s.mu.RUnlock()
	next := map[string]*adapter{}
	for n, a := range old {
		na, err := loadAdapter(b.model, n, a.path)
		if err != nil {
			return fmt.Errorf("reloading adapter %s on the new model: %w", n, err)
		}
		next[n] = na
	}
	s.mu.Lock()
	s.base, s.adapters = b, next
	s.mu.Unlock()
	// Every kept prompt was prefilled by the old model or its adapters.
	s.eng.prefixes.drop(func(m *qwen3.Model) bool { return m != b.model && !isView(next, m) })
	s.log.Info("loaded model", "dir", dir, "id", b.id)
	return nil
}

// resolve maps a request's model name to the base bundle and the model
// view to run (an adapter view for an adapter name).
func (s *Server) resolve(name string) (*bundle, *qwen3.Model, *apiError) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if name == "" || name == s.base.id {
		return s.base, s.base.model, nil
	}
	if a, ok := s.adapters[name]; ok {
		return s.base, a.view, nil
	}
	e := notFound(fmt.Sprintf("The model `%s` does not exist.", name))
	p := "model"
	e.param = &p
	return nil, nil, e
}

func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusOK) })
	mux.HandleFunc("GET /metrics", s.handleMetrics)
	mux.HandleFunc("GET /v1/models", s.handleModels)
	mux.HandleFunc("POST /v1/chat/completions", s.handleChat)
	mux.HandleFunc("POST /v1/completions", s.handleCompletions)
	mux.HandleFunc("POST /v1/load_lora_adapter", s.adapterUpdates(s.handleLoad))
	mux.HandleFunc("POST /v1/unload_lora_adapter", s.adapterUpdates(s.handleUnload))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusNotFound, map[string]string{"detail": "Not Found"})
	})
	return s.admitBodies(limitBodies(mux, s.opts.MaxBodyBytes))
}

// adapterUpdates answers 403 unless Options.AdapterUpdates (which also
// requires the token on every route).
func (s *Server) adapterUpdates(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if !s.opts.AdapterUpdates {
			writeError(w, &apiError{status: http.StatusForbidden, typ: "PermissionDeniedError",
				msg: "Adapter updates are off on this server (mascot serve --allow-adapter-updates, with --api-key-env)."})
			return
		}
		h(w, r)
	}
}

// isView says whether m is the view of one of adapters.
func isView(adapters map[string]*adapter, m *qwen3.Model) bool {
	for _, a := range adapters {
		if a.view == m {
			return true
		}
	}
	return false
}
