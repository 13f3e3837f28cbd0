package web

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"unicode/utf8"

	"mascot.dev/mascot/internal/httpguard"
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
// and everything else with the request guard every mascot server shares
// (internal/httpguard): a Host naming the bound address on every request
// (DNS rebinding), and on a POST the same origin (cross-site forms) and the
// per-process token the viewer embeds in its own forms (a page elsewhere
// cannot read it), else 403. POST bodies are capped at maxBody (413
// beyond).
type guard struct {
	token string
	g     *httpguard.Guard
}

func newGuard(hosts []string) (*guard, error) {
	b := make([]byte, tokenLength)
	if _, err := rand.Read(b); err != nil {
		return nil, fmt.Errorf("creating the same-site token: %w", err)
	}
	return &guard{token: base64.RawURLEncoding.EncodeToString(b), g: httpguard.New(httpguard.Options{Hosts: hosts})}, nil
}

// boundHosts lists the Host values that name the viewer's listener.
func boundHosts(requested, bound string) []string { return httpguard.BoundHosts(requested, bound) }

// hostOnly refuses, on every route, a request whose Host is not this
// viewer's.
func (g *guard) hostOnly(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !g.g.HostAllowed(r.Host) {
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
		if err := g.g.CheckOrigin(r); err != nil {
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
