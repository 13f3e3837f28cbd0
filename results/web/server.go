package web

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"mascot.dev/mascot/results"
)

// DefaultAddr is where Serve listens unless Options.Addr says otherwise.
const DefaultAddr = "127.0.0.1:8080"

// Options configures the viewer.
type Options struct {
	DB       string       // results database path; "" = results.DefaultPath (Serve only)
	Addr     string       // listen address; "" = DefaultAddr (Serve only)
	PageSize int          // conversations per page; 0 = 50
	Resample int          // bootstrap resamples of report pages; 0 = 1000, negative = no CIs
	Refresh  int          // seconds between reloads of pages showing a running run; 0 = 5
	Logger   *slog.Logger // request errors; nil = slog.Default()
	// Ready, when set, is called with the bound address once Serve listens
	// (useful with Addr "127.0.0.1:0").
	Ready func(addr string)
	// Hosts are the Host header values ("host:port"; "*:port" = any IP
	// literal) the viewer answers (DNS-rebinding protection). Serve sets
	// the listener's; empty = loopback hosts.
	Hosts []string
	// Chat opens conversations with a run's trained system for the chat
	// page; nil = the page explains how to enable it (mascot ui --chat).
	Chat ChatOpener
	// Patience is how long the report and compare pages wait for tables
	// that are not stored yet before answering "computing" (202, the page
	// reloads itself); 0 = DefaultPatience.
	Patience time.Duration
}

func (o Options) withDefaults() Options {
	if o.DB == "" {
		o.DB = results.DefaultPath
	}
	if o.Addr == "" {
		o.Addr = DefaultAddr
	}
	if o.PageSize <= 0 {
		o.PageSize = 50
	}
	if o.Resample == 0 {
		o.Resample = 1000
	}
	if o.Refresh <= 0 {
		o.Refresh = 5
	}
	if o.Patience <= 0 {
		o.Patience = DefaultPatience
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return o
}

// Serve opens the store at opts.DB and serves the viewer on opts.Addr until
// ctx is done, then shuts down gracefully.
func Serve(ctx context.Context, opts Options) error {
	opts = opts.withDefaults()
	st, err := results.OpenContext(ctx, opts.DB)
	if err != nil {
		return fmt.Errorf("opening results store: %w", err)
	}
	defer st.Close()
	ln, err := net.Listen("tcp", opts.Addr)
	if err != nil {
		return fmt.Errorf("listening on %s: %w", opts.Addr, err)
	}
	if len(opts.Hosts) == 0 {
		opts.Hosts = boundHosts(opts.Addr, ln.Addr().String())
	}
	h, err := NewHandler(st, opts)
	if err != nil {
		ln.Close()
		return err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	if opts.Ready != nil {
		opts.Ready(ln.Addr().String())
	}
	opts.Logger.Info("mascot ui listening", "url", "http://"+ln.Addr().String(), "db", opts.DB)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("serving: %w", err)
	case <-ctx.Done():
	}
	shutCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutCtx); err != nil {
		return fmt.Errorf("shutting down: %w", err)
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serving: %w", err)
	}
	return nil
}

// server holds what the handlers share.
type server struct {
	st    *results.Store
	opts  Options
	pages *pageSet
	guard *guard
	chats *chatSessions
	// pending are report and compare computations outliving their request.
	pending pending
}

// NewHandler returns the viewer's handler on an open store. Serve wraps it;
// tests and other servers can mount it directly.
func NewHandler(store *results.Store, opts Options) (http.Handler, error) {
	if store == nil {
		return nil, errors.New("creating web handler: nil store")
	}
	opts = opts.withDefaults()
	g, err := newGuard(opts.Hosts)
	if err != nil {
		return nil, err
	}
	ps, err := parsePages(g.token)
	if err != nil {
		return nil, fmt.Errorf("parsing templates: %w", err)
	}
	s := &server{st: store, opts: opts, pages: ps, guard: g, chats: newChatSessions()}
	mux := http.NewServeMux()
	mux.Handle("GET /static/", http.StripPrefix("/static/", http.FileServerFS(staticFS())))
	mux.HandleFunc("GET /{$}", s.handle(s.runsList))
	mux.HandleFunc("GET /runs/{id}", s.handle(s.runPage))
	mux.HandleFunc("GET /runs/{id}/episodes", s.handle(s.episodesPage))
	mux.HandleFunc("GET /runs/{id}/candidates", s.handle(s.candidatesPage))
	mux.HandleFunc("GET /runs/{id}/training", s.handle(s.trainingPage))
	mux.HandleFunc("GET /runs/{id}/report", s.handle(s.reportPage))
	mux.HandleFunc("GET /runs/{id}/sweep", s.handle(s.sweepPage))
	mux.HandleFunc("GET /episodes/{eid}", s.handle(s.episodePage))
	mux.HandleFunc("GET /compare", s.handle(s.comparePage))
	mux.HandleFunc("GET /rate", s.handle(s.ratePage))
	mux.HandleFunc("POST /rate", g.post(s.handle(s.rateSubmit)))
	mux.HandleFunc("GET /rate/runs", s.handle(s.rateRunsPage))
	mux.HandleFunc("POST /rate/runs", g.post(s.handle(s.rateRunsSubmit)))
	mux.HandleFunc("GET /chat", s.handle(s.chatPage))
	mux.HandleFunc("POST /chat", g.post(s.handle(s.chatSubmit)))
	mux.HandleFunc("GET /", s.handle(func(w http.ResponseWriter, r *http.Request) error {
		return notFound("no page at %s", r.URL.Path)
	}))
	return securityHeaders(g.hostOnly(mux)), nil
}

// securityHeaders forbids framing and any script or remote resource.
func securityHeaders(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Security-Policy", "default-src 'self'; style-src 'self'; img-src 'self' data:; script-src 'none'; frame-ancestors 'none'")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		h.ServeHTTP(w, r)
	})
}
