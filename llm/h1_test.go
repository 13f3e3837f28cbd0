package llm

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"mascot.dev/mascot/internal/fakevllm"
)

// An http:// endpoint's requests go through internal/h1: its pool, not
// net/http's, holds the connection they share afterwards.
func TestHTTPEndpointRequestsGoThroughH1(t *testing.T) {
	s := fakevllm.Start(t, fakevllm.Options{})
	c := newTestClient(t, nil, s.URL())
	for range 5 {
		if _, err := c.Chat(context.Background(), userReq("speaker", "hello")); err != nil {
			t.Fatal(err)
		}
	}
	st := c.eps["main"]
	if n := st.h1.Idle(); n != 1 {
		t.Fatalf("h1 keeps %d idle connections after 5 sequential requests, want 1", n)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if n := st.h1.Idle(); n != 0 {
		t.Fatalf("Close left %d idle h1 connections", n)
	}
}

// h1 follows no redirect; the doer sends a redirected request again
// through net/http, which does, body included.
func TestRedirectedRequestIsFollowed(t *testing.T) {
	s := fakevllm.Start(t, fakevllm.Options{Record: true})
	target, err := url.Parse(strings.TrimSuffix(s.URL(), "/v1"))
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(target)
	var redirected atomic.Int64
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/old/") {
			redirected.Add(1)
			http.Redirect(w, r, "/v1/"+strings.TrimPrefix(r.URL.Path, "/old/"), http.StatusTemporaryRedirect)
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(front.Close)
	c := newTestClient(t, nil, front.URL+"/old")
	resp, err := c.Chat(context.Background(), userReq("speaker", "through a redirect"))
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Choices) != 1 || resp.Choices[0] == "" {
		t.Fatalf("choices %q", resp.Choices)
	}
	// h1's send, then net/http's from the start, which follows it.
	if redirected.Load() != 2 {
		t.Fatalf("the front server redirected %d requests, want 2", redirected.Load())
	}
	recs := s.Requests()
	if len(recs) != 1 || !strings.Contains(string(recs[0].Body), "through a redirect") {
		t.Fatalf("the server behind the redirect got %d requests, the last without the body", len(recs))
	}
}

// Request bodies' buffers are reused between requests: concurrent
// requests of different lengths each arrive whole and as sent.
func TestPooledBodiesArriveIntact(t *testing.T) {
	s := fakevllm.Start(t, fakevllm.Options{Record: true})
	c := newTestClient(t, nil, s.URL())
	const n = 200
	errs := runMany(t, c, n, 16, nil)
	for i, err := range errs {
		if err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
	}
	recs := s.Requests()
	if len(recs) != n {
		t.Fatalf("server got %d requests, want %d", len(recs), n)
	}
	seen := map[string]bool{}
	for _, r := range recs {
		var body struct {
			Messages []struct{ Content string } `json:"messages"`
		}
		if err := json.Unmarshal(r.Body, &body); err != nil {
			t.Fatalf("server got a body that is not JSON (%v): %.200s", err, r.Body)
		}
		last := body.Messages[len(body.Messages)-1].Content
		if seen[last] {
			t.Fatalf("two requests carried %q", last)
		}
		seen[last] = true
	}
}
