package web

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
	"unicode/utf8"

	"mascot.dev/mascot/results"
)

// Limits on what a POST may carry. A form is small; a larger body is cut
// off with 413 before it is parsed.
const (
	maxBody     = 64 << 10 // bytes of one POST body
	maxRaterID  = results.MaxRaterID
	maxField    = 256    // bytes of an id-like field (run, context, system)
	maxMessage  = 4000   // bytes of one chat message
	csrfField   = "csrf" // the form field holding the same-site token
	tokenLength = 32     // random bytes of the token
)

// guard protects the viewer's write endpoints (the raters and the chat page)
// and everything else against the two ways a web page on another site can
// reach a server on loopback:
//
//   - DNS rebinding: a foreign name resolving to 127.0.0.1 sends its own
//     Host header. Every request must name the bound address (or, when the
//     viewer does not know it, a loopback host), else 403.
//   - Cross-site form posts: a POST must come from the same origin
//     (net/http's CrossOriginProtection reads Sec-Fetch-Site and Origin)
//     and carry the per-process token the viewer embeds in its own forms
//     (a page elsewhere cannot read it), else 403.
//
// POST bodies are capped at maxBody (413 beyond).
type guard struct {
	hosts map[string]bool // allowed Host values; empty = any loopback host
	token string
	xorig *http.CrossOriginProtection
}

func newGuard(hosts []string) (*guard, error) {
	b := make([]byte, tokenLength)
	if _, err := rand.Read(b); err != nil {
		return nil, fmt.Errorf("creating the same-site token: %w", err)
	}
	g := &guard{hosts: map[string]bool{}, token: base64.RawURLEncoding.EncodeToString(b),
		xorig: http.NewCrossOriginProtection()}
	for _, h := range hosts {
		g.hosts[strings.ToLower(h)] = true
	}
	return g, nil
}

// boundHosts lists the Host values that name a listener asked for at
// requested and bound at bound: both addresses and, for a loopback
// listener, localhost with its port. A listener on every interface
// (0.0.0.0, ::) is reached by the machine's IP addresses and host name: it
// answers "*:PORT" (any IP literal) and the host name with the port, but
// still no other name, which is what DNS rebinding needs.
func boundHosts(requested, bound string) []string {
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

// hostAllowed reports whether a request's Host header names this server.
func (g *guard) hostAllowed(host string) bool {
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

// hostOnly refuses, on every route, a request whose Host is not this
// viewer's.
func (g *guard) hostOnly(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !g.hostAllowed(r.Host) {
			http.Error(w, fmt.Sprintf("host %q is not this viewer's address", shorten(r.Host, 80)), http.StatusForbidden)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// post guards a write endpoint: same origin, a bounded body and the
// same-site token, else 403 (413 for a body over maxBody).
func (g *guard) post(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if err := g.xorig.Check(r); err != nil {
			http.Error(w, "cross-origin request refused: "+err.Error(), http.StatusForbidden)
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, maxBody)
		if err := r.ParseForm(); err != nil {
			var mb *http.MaxBytesError
			if errors.As(err, &mb) {
				http.Error(w, fmt.Sprintf("request body over %d bytes", maxBody), http.StatusRequestEntityTooLarge)
				return
			}
			http.Error(w, "reading form: "+err.Error(), http.StatusBadRequest)
			return
		}
		got := r.PostForm.Get(csrfField)
		if subtle.ConstantTimeCompare([]byte(got), []byte(g.token)) != 1 {
			http.Error(w, "missing or wrong form token (reload the page and submit again)", http.StatusForbidden)
			return
		}
		h(w, r)
	}
}

// field returns a trimmed form value, refusing one over max bytes or
// holding control characters or invalid UTF-8.
func field(r *http.Request, name string, max int) (string, error) {
	v := strings.TrimSpace(r.PostForm.Get(name))
	if len(v) > max {
		return "", badRequest("field %s is %d bytes, over the limit of %d", name, len(v), max)
	}
	if !utf8.ValidString(v) {
		return "", badRequest("field %s is not valid UTF-8", name)
	}
	for _, c := range v {
		if c < 0x20 && c != '\n' && c != '\r' && c != '\t' || c == 0x7f {
			return "", badRequest("field %s holds a control character", name)
		}
	}
	return v, nil
}
