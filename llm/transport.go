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
)

// attemptState travels in the request context from the retry loop to the
// doer: what to splice into the body, and what the server answered.
type attemptState struct {
	extra      []byte // `"temperature":0,"top_k":5` (no braces), may be empty
	requestID  string // the journal id, sent as X-Request-Id ("" = none)
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

// doer implements go-openai's HTTPDoer. It rewrites the JSON body so that
// fields go-openai drops (temperature 0, top_p 0) or lacks (top_k,
// repetition_penalty) are really sent, and records status and Retry-After.
type doer struct {
	hc *http.Client
}

// Do implements openai.HTTPDoer.
func (d *doer) Do(req *http.Request) (*http.Response, error) {
	st, _ := req.Context().Value(attemptKey{}).(*attemptState)
	if st != nil && len(st.extra) > 0 && req.Body != nil {
		body, err := readBody(req, len(st.extra)+1)
		if err != nil {
			return nil, err
		}
		body = spliceJSON(body, st.extra)
		req.Body = io.NopCloser(bytes.NewReader(body))
		req.ContentLength = int64(len(body))
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	}
	if st != nil && st.requestID != "" {
		req.Header.Set(RequestIDHeader, st.requestID)
	}
	if scope, ok := req.Context().Value(scopeKey{}).(string); ok && scope != "" {
		req.Header.Set(ScopeHeader, scope)
	}
	resp, err := d.hc.Do(req)
	if err == nil && st != nil {
		st.status = resp.StatusCode
		st.retryAfter = parseRetryAfter(resp.Header.Get("Retry-After"), time.Now())
		if resp.StatusCode >= 400 {
			body, rerr := io.ReadAll(io.LimitReader(resp.Body, maxErrBody))
			_ = resp.Body.Close()
			if rerr != nil {
				return nil, fmt.Errorf("reading the HTTP %d response: %w", resp.StatusCode, rerr)
			}
			st.errBody = body
			resp.Body = io.NopCloser(bytes.NewReader(body))
		}
	}
	return resp, err
}

// readBody reads and closes req's body into a slice with room for spare
// more bytes (the spliced members), so that splicing them copies nothing.
// A body of known length is read into one allocation of the right size
// (bytes.Buffer.ReadFrom would grow it again for its last, empty read).
func readBody(req *http.Request, spare int) ([]byte, error) {
	var body []byte
	var err error
	if n := req.ContentLength; n > 0 {
		body = make([]byte, n, n+int64(spare))
		_, err = io.ReadFull(req.Body, body)
	} else {
		body, err = io.ReadAll(req.Body)
	}
	if cerr := req.Body.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, fmt.Errorf("reading the request body: %w", err)
	}
	return body, nil
}

// spliceJSON adds the members in extra to the JSON object in body, in
// place when body has the room (it may reuse body's array). go-openai omits
// the zero values of the fields we splice, so no key is duplicated.
func spliceJSON(body, extra []byte) []byte {
	b := bytes.TrimRight(body, " \t\r\n")
	if len(b) < 2 || b[len(b)-1] != '}' {
		return body
	}
	out := b[:len(b)-1]
	if inner := bytes.TrimSpace(b[1 : len(b)-1]); len(inner) > 0 {
		out = append(out, ',')
	}
	out = append(out, extra...)
	return append(out, '}')
}

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
