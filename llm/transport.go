package llm

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"mascot.dev/mascot/internal/h1"
)

// attemptState travels in the request context from the retry loop to the
// doer: the body to send, and what the server answered.
type attemptState struct {
	body       []byte        // the chat request's JSON (wire.go); nil: go-openai's
	netHTTP    bool          // sent through net/http, which may read body after returning
	requestID  string        // the journal id, sent as X-Request-Id ("" = none)
	reply      *wireResponse // a 2xx chat reply, decoded by decodeReply
	status     int
	retryAfter time.Duration
	// errBody is the start of an error response's body (status >= 400), so
	// a failure shows what the server said even when go-openai finds no
	// message in it.
	errBody []byte
}

// maxErrBody bounds the error body kept for messages.
const maxErrBody = 4 << 10

type attemptKey struct{}

type scopeKey struct{}

// WithScope returns ctx whose requests carry a gateway scope token (the
// ScopeHeader): a plugin calling its endpoint through the host's Gateway
// passes the token the host gave its items (ScopeMetadata).
func WithScope(ctx context.Context, token string) context.Context {
	return context.WithValue(ctx, scopeKey{}, token)
}

func withAttempt(ctx context.Context, st *attemptState) context.Context {
	return context.WithValue(ctx, attemptKey{}, st)
}

// doer implements go-openai's HTTPDoer. It sends the body built for the
// request (wire.go) in place of go-openai's, decodes a successful reply
// itself (go-openai then decodes an empty object), and records status and
// Retry-After. A request to an http:// URL goes out on the calling
// goroutine through h1 (internal/h1), anything else through hc.
type doer struct {
	hc *http.Client
	h1 *h1.Client
}

// Do implements openai.HTTPDoer.
func (d *doer) Do(req *http.Request) (*http.Response, error) {
	st, _ := req.Context().Value(attemptKey{}).(*attemptState)
	if st != nil && st.body != nil && req.Body != nil {
		_ = req.Body.Close() // go-openai's, of the model alone
		body := st.body
		req.Body = io.NopCloser(bytes.NewReader(body)) // a known in-memory body (see chatRequest)
		req.ContentLength = int64(len(body))
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	}
	if st != nil && st.requestID != "" {
		req.Header.Set(RequestIDHeader, st.requestID)
	}
	if scope, ok := req.Context().Value(scopeKey{}).(string); ok && scope != "" {
		req.Header.Set(ScopeHeader, scope)
	}
	resp, err := d.send(req, st)
	if err != nil || st == nil {
		return resp, err
	}
	st.status = resp.StatusCode
	st.retryAfter = parseRetryAfter(resp.Header.Get("Retry-After"), time.Now())
	switch {
	case resp.StatusCode >= 400:
		body, rerr := io.ReadAll(io.LimitReader(resp.Body, maxErrBody))
		_ = resp.Body.Close()
		if rerr != nil {
			return nil, fmt.Errorf("reading the HTTP %d response: %w", resp.StatusCode, rerr)
		}
		st.errBody = body
		resp.Body = byteReader(body)
	case st.body != nil && resp.StatusCode >= 200 && resp.StatusCode < 300:
		body, buf, rerr := readAll(resp)
		if rerr != nil {
			// go-openai meets the same error where it did before.
			resp.Body = io.NopCloser(io.MultiReader(bytes.NewReader(body), errReader{rerr}))
			break
		}
		if out, ok := decodeReply(body); ok {
			st.reply = out
			if buf != nil {
				replyBufs.put(buf) // decodeReply copied what it kept
			}
			body = emptyObject
		}
		resp.Body = byteReader(body)
	}
	return resp, nil
}

var emptyObject = []byte("{}")

// send sends req through h1 when its URL is http://, else through hc. h1
// does not follow redirects: on one, req is sent again from the start
// through hc, which follows it as it did every request before h1 (a
// redirect costs a round trip more; an endpoint's URL should not redirect).
func (d *doer) send(req *http.Request, st *attemptState) (*http.Response, error) {
	viaNetHTTP := func(r *http.Request) (*http.Response, error) {
		if st != nil {
			st.netHTTP = true
		}
		return d.hc.Do(r)
	}
	if d.h1 == nil || req.URL.Scheme != "http" {
		return viaNetHTTP(req)
	}
	resp, err := d.h1.Do(req)
	if err != nil || !isRedirect(resp.StatusCode) || resp.Header.Get("Location") == "" {
		return resp, err
	}
	again := req.Clone(req.Context())
	if req.Body != nil && req.Body != http.NoBody {
		if req.GetBody == nil {
			return resp, nil // the redirect itself: the body cannot be sent again
		}
		b, err := req.GetBody()
		if err != nil {
			return resp, nil
		}
		again.Body = b
	}
	_ = resp.Body.Close()
	return viaNetHTTP(again)
}

func isRedirect(code int) bool {
	switch code {
	case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther,
		http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
		return true
	}
	return false
}

// readAll reads and closes a response body: into a pooled buffer (buf,
// which the caller may give back) when its length is known.
func readAll(resp *http.Response) (body []byte, buf *[]byte, err error) {
	defer resp.Body.Close()
	if n := resp.ContentLength; n > 0 && n < 64<<20 {
		buf = replyBufs.get(int(n))
		k, err := io.ReadFull(resp.Body, *buf)
		if err != nil {
			return (*buf)[:k], nil, err // not given back: the caller keeps the bytes
		}
		return *buf, buf, nil
	}
	body, err = io.ReadAll(resp.Body)
	return body, nil, err
}

// errReader fails every read with err.
type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }

// parseRetryAfter reads delay-seconds or an HTTP date; 0 when absent.
func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s < 0 {
			return 0
		}
		return time.Duration(s * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return d
		}
	}
	return 0
}

// newH1Client returns the http:// client of an endpoint, keeping as many
// idle connections as newHTTPClient's.
func newH1Client(conc int) *h1.Client {
	return &h1.Client{MaxIdle: conc + 8}
}

// newHTTPClient returns a client whose pool keeps enough idle connections
// for the endpoint's concurrency (the default of 2 per host would make
// every burst open new connections).
func newHTTPClient(conc int) *http.Client {
	tr := &http.Transport{
		Proxy:                 nil,
		DialContext:           (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:          0,
		MaxIdleConnsPerHost:   conc + 8,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: time.Second,
	}
	return &http.Client{Transport: tr}
}
