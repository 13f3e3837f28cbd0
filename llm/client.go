package llm

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"mascot.dev/mascot/internal/h1"
)

// Client sends requests for roles to their endpoints. It is safe for
// concurrent use.
type Client struct {
	cfg   Config
	eps   map[string]*endpointState
	roles map[string]string
	stats *stats

	rngMu sync.Mutex
	rng   *rand.Rand
}

// endpointState is an Endpoint with its replicas, semaphore and key.
type endpointState struct {
	ep   Endpoint
	key  string // API key; used for the header and for redaction only
	sem  chan struct{}
	pool *pool
	hc   *http.Client // https:// replicas, and redirects
	h1   *h1.Client   // http:// replicas (internal/h1)

	modelMu sync.Mutex
	model   string // resolved from /v1/models when ep.Model is empty
}

// New builds a Client. It reads each endpoint's API key from the
// environment and fails when a named variable is unset.
func New(cfg Config) (*Client, error) {
	c := &Client{cfg: cfg, eps: map[string]*endpointState{}, roles: map[string]string{}, stats: newStats()}
	seed := cfg.Seed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	c.rng = rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	for _, e := range cfg.Endpoints {
		if err := e.validate(); err != nil {
			return nil, fmt.Errorf("configuring llm client: %w", err)
		}
		if _, dup := c.eps[e.Name]; dup {
			return nil, fmt.Errorf("configuring llm client: endpoint %q defined twice", e.Name)
		}
		e = e.withDefaults()
		key, err := e.apiKey()
		if err != nil {
			return nil, fmt.Errorf("configuring llm client: %w", err)
		}
		st := &endpointState{ep: e, key: key, sem: make(chan struct{}, e.Concurrency),
			hc: newHTTPClient(e.Concurrency), h1: newH1Client(e.Concurrency), pool: &pool{cooldown: e.Cooldown}}
		for _, u := range e.URLs {
			oc := openai.DefaultConfig(key)
			oc.BaseURL = strings.TrimRight(u, "/")
			oc.HTTPClient = &doer{hc: st.hc, h1: st.h1}
			st.pool.reps = append(st.pool.reps, &replica{base: oc.BaseURL, redacted: redactURL(oc.BaseURL),
				oc: openai.NewClientWithConfig(oc)})
		}
		c.eps[e.Name] = st
	}
	for role, name := range cfg.Roles {
		if _, ok := c.eps[name]; !ok {
			return nil, fmt.Errorf("configuring llm client: role %q uses unknown endpoint %q", role, name)
		}
		c.roles[role] = name
	}
	if cfg.Default != "" {
		if _, ok := c.eps[cfg.Default]; !ok {
			return nil, fmt.Errorf("configuring llm client: unknown default endpoint %q", cfg.Default)
		}
	}
	return c, nil
}

// EndpointFor returns the endpoint that serves role (with defaults filled
// in), or false. Judge roles never fall back to Config.Default.
func (c *Client) EndpointFor(role string) (Endpoint, bool) {
	st, err := c.endpointFor(Request{Role: role})
	if err != nil {
		return Endpoint{}, false
	}
	return st.ep, true
}

func (c *Client) endpointFor(req Request) (*endpointState, error) {
	if req.Endpoint != "" {
		return c.endpoint(req.Endpoint)
	}
	role := req.Role
	if name, ok := c.roles[role]; ok {
		return c.eps[name], nil
	}
	if c.cfg.Default != "" && !isJudgeRole(role) {
		return c.eps[c.cfg.Default], nil
	}
	return nil, fmt.Errorf("%w %q", ErrNoEndpoint, role)
}

func (c *Client) endpoint(name string) (*endpointState, error) {
	st, ok := c.eps[name]
	if !ok {
		return nil, fmt.Errorf("unknown endpoint %q", name)
	}
	return st, nil
}

// Stats returns a snapshot of the counters.
func (c *Client) Stats() Stats {
	s := c.stats.snapshot()
	for name, st := range c.eps {
		s.Replicas = append(s.Replicas, st.pool.snapshot(name)...)
	}
	return s
}

// Close releases idle connections.
func (c *Client) Close() error {
	for _, st := range c.eps {
		st.hc.CloseIdleConnections()
		st.h1.CloseIdleConnections()
	}
	return nil
}

// backoff returns the jittered wait before retry number n (1-based):
// half of min(max, base·2^(n-1)) plus a uniform draw over the other half.
func (c *Client) backoff(ep Endpoint, n int) time.Duration {
	d := ep.BackoffBase
	for i := 1; i < n && d < ep.BackoffMax; i++ {
		d *= 2
	}
	if d > ep.BackoffMax {
		d = ep.BackoffMax
	}
	c.rngMu.Lock()
	j := time.Duration(c.rng.Int64N(int64(d/2) + 1))
	c.rngMu.Unlock()
	return d/2 + j
}

// scrub removes the endpoint's key from a response's text, so a server
// that echoes it back cannot get it stored or logged.
func (st *endpointState) scrub(r Response) Response {
	if st.key == "" {
		return r
	}
	for _, l := range [][]string{r.Choices, r.Raw} {
		for i, s := range l {
			l[i] = strings.ReplaceAll(s, st.key, "[REDACTED]")
		}
	}
	return r
}

// redact removes the endpoint's key from s and caps its length.
func (st *endpointState) redact(s string) string {
	if st.key != "" {
		s = strings.ReplaceAll(s, st.key, "[REDACTED]")
	}
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
