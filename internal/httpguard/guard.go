package httpguard

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
)

// Options configure a Guard.
type Options struct {
	// Hosts are the Host values that name this server (BoundHosts); empty
	// allows any loopback host, for a handler mounted before it knows its
	// address.
	Hosts []string
	// AllMethods refuses a cross-origin request of any method (an API
	// server no page may read); false refuses only unsafe methods, so a
	// link from another site still opens a viewer page.
	AllMethods bool
	// Token, when set, must come as "Authorization: Bearer <Token>" on
	// every request Open does not let through.
	Token string
	// Open reports the requests that need no token (a health check).
	Open func(*http.Request) bool
	// Refuse writes a refusal in the server's own error format; default
	// plain text.
	Refuse func(w http.ResponseWriter, status int, msg string)
}

// Guard checks every request against Options.
type Guard struct {
	opts  Options
	hosts map[string]bool
	xorig *http.CrossOriginProtection
}

// New returns a guard for opts.
func New(opts Options) *Guard {
	g := &Guard{opts: opts, hosts: map[string]bool{}, xorig: http.NewCrossOriginProtection()}
	for _, h := range opts.Hosts {
		g.hosts[strings.ToLower(h)] = true
	}
	if g.opts.Refuse == nil {
		g.opts.Refuse = func(w http.ResponseWriter, status int, msg string) { http.Error(w, msg, status) }
	}
	return g
}

// Wrap returns h behind the guard: a foreign Host, a cross-origin request
// and a missing or wrong token are refused with 403 (401 for the token)
// before h sees them.
func (g *Guard) Wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if status, msg := g.Check(r); status != 0 {
			g.opts.Refuse(w, status, msg)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// Check returns the status and message a request is refused with, or 0.
func (g *Guard) Check(r *http.Request) (int, string) {
	if !g.HostAllowed(r.Host) {
		return http.StatusForbidden, fmt.Sprintf("host %q is not this server's address", shorten(r.Host, 80))
	}
	if err := g.CheckOrigin(r); err != nil {
		return http.StatusForbidden, "cross-origin request refused: " + err.Error()
	}
	if g.opts.Token != "" && (g.opts.Open == nil || !g.opts.Open(r)) && !BearerOK(r, g.opts.Token) {
		return http.StatusUnauthorized, "missing or wrong bearer token"
	}
	return 0, ""
}

// CheckOrigin refuses a cross-origin request: of an unsafe method, or of
// any method when Options.AllMethods.
func (g *Guard) CheckOrigin(r *http.Request) error {
	if g.opts.AllMethods && (r.Method == http.MethodGet || r.Method == http.MethodHead || r.Method == http.MethodOptions) {
		// CrossOriginProtection lets safe methods through; an API
		// server judges them like a POST.
		rr := *r
		rr.Method = http.MethodPost
		r = &rr
	}
	return g.xorig.Check(r)
}

// HostAllowed reports whether a request's Host header names this server.
func (g *Guard) HostAllowed(host string) bool {
	host = strings.ToLower(host)
	h, port, err := net.SplitHostPort(host)
	if err != nil {
		h, port = host, ""
	}
	h = strings.Trim(h, "[]")
	if len(g.hosts) > 0 {
		if g.hosts[host] {
			return true
		}
		return net.ParseIP(h) != nil && g.hosts[net.JoinHostPort("*", port)]
	}
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// BoundHosts lists the Host values that name a listener asked for at
// requested and bound at bound: both addresses and, for a loopback
// listener, localhost with its port. A listener on every interface
// (0.0.0.0, ::) is reached by the machine's IP addresses and host name: it
// answers "*:PORT" (any IP literal) and the host name with the port, but
// still no other name, which is what DNS rebinding needs.
func BoundHosts(requested, bound string) []string {
	hosts := []string{requested, bound}
	host, port, err := net.SplitHostPort(bound)
	if err != nil {
		return hosts
	}
	ip := net.ParseIP(host)
	switch {
	case ip == nil:
	case ip.IsLoopback():
		hosts = append(hosts, net.JoinHostPort("localhost", port))
	case ip.IsUnspecified():
		hosts = append(hosts, net.JoinHostPort("*", port), net.JoinHostPort("localhost", port))
		if name, err := os.Hostname(); err == nil && name != "" {
			hosts = append(hosts, net.JoinHostPort(name, port))
		}
	}
	return hosts
}

// BearerOK reports whether r carries "Authorization: Bearer token",
// compared in constant time.
func BearerOK(r *http.Request, token string) bool {
	got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	return ok && subtle.ConstantTimeCompare([]byte(strings.TrimSpace(got)), []byte(token)) == 1
}

// NewToken returns 32 random bytes, base64url-encoded.
func NewToken() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("creating a token: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// shorten cuts s to n bytes for a message.
func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
