package h1_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"mascot.dev/mascot/internal/h1"
)

// countingServer is an httptest server that counts the connections it
// accepted and the requests it served.
type countingServer struct {
	*httptest.Server
	conns, reqs atomic.Int64
}

func newCountingServer(t *testing.T, h http.HandlerFunc) *countingServer {
	t.Helper()
	s := &countingServer{}
	s.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.reqs.Add(1)
		h(w, r)
	}))
	s.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			s.conns.Add(1)
		}
	}
	s.Start()
	t.Cleanup(s.Close)
	return s
}

func echo(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"method":%q,"body":%q}`, r.Method, b)
}

func post(t *testing.T, c *h1.Client, ctx context.Context, u, body string) (*http.Response, error) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	return c.Do(req)
}

func readBody(t *testing.T, resp *http.Response) string {
	t.Helper()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	return string(b)
}

// postEach posts n requests one after another, pause after each, and
// returns their bodies, failing the test on an error.
func postEach(t *testing.T, c *h1.Client, u string, n int, pause time.Duration) []string {
	t.Helper()
	var bodies []string
	for i := range n {
		resp, err := post(t, c, context.Background(), u, "a")
		if err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
		bodies = append(bodies, readBody(t, resp))
		time.Sleep(pause)
	}
	return bodies
}

func TestSequentialRequestsShareOneConnection(t *testing.T) {
	s := newCountingServer(t, echo)
	c := &h1.Client{}
	for i := range 50 {
		resp, err := post(t, c, context.Background(), s.URL+"/v1/x", fmt.Sprintf("req %d", i))
		if err != nil {
			t.Fatal(err)
		}
		if got, want := readBody(t, resp), fmt.Sprintf(`{"method":"POST","body":"req %d"}`, i); got != want {
			t.Fatalf("response %d = %s, want %s", i, got, want)
		}
	}
	if n := s.conns.Load(); n != 1 {
		t.Fatalf("50 sequential requests opened %d connections, want 1", n)
	}
	if n := c.Idle(); n != 1 {
		t.Fatalf("idle connections = %d, want 1", n)
	}
	c.CloseIdleConnections()
	if n := c.Idle(); n != 0 {
		t.Fatalf("idle connections after CloseIdleConnections = %d", n)
	}
}

func TestConcurrentRequestsKeepAtMostMaxIdle(t *testing.T) {
	s := newCountingServer(t, func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(5 * time.Millisecond)
		echo(w, r)
	})
	c := &h1.Client{MaxIdle: 4}
	var wg sync.WaitGroup
	var failed atomic.Int64
	for g := range 16 {
		wg.Go(func() {
			for i := range 10 {
				body := fmt.Sprintf("g%d-%d", g, i)
				resp, err := post(t, c, context.Background(), s.URL, body)
				if err != nil {
					failed.Add(1)
					return
				}
				b, _ := io.ReadAll(resp.Body)
				_ = resp.Body.Close()
				if !strings.Contains(string(b), `"`+body+`"`) {
					failed.Add(1)
				}
			}
		})
	}
	wg.Wait()
	if failed.Load() > 0 {
		t.Fatalf("%d of 16 goroutines failed or got another request's reply", failed.Load())
	}
	if n := c.Idle(); n > 4 {
		t.Fatalf("%d idle connections kept, MaxIdle 4", n)
	}
	if s.reqs.Load() != 160 {
		t.Fatalf("server served %d requests, want 160", s.reqs.Load())
	}
}

func TestChunkedResponseIsReadAndItsConnectionReused(t *testing.T) {
	s := newCountingServer(t, func(w http.ResponseWriter, r *http.Request) {
		for i := range 3 {
			fmt.Fprintf(w, "part%d;", i)
			w.(http.Flusher).Flush() // no Content-Length: chunked
		}
	})
	c := &h1.Client{}
	for range 3 {
		resp, err := post(t, c, context.Background(), s.URL, "x")
		if err != nil {
			t.Fatal(err)
		}
		if resp.ContentLength >= 0 {
			t.Fatalf("ContentLength %d: the handler did not answer chunked", resp.ContentLength)
		}
		if got := readBody(t, resp); got != "part0;part1;part2;" {
			t.Fatalf("body %q", got)
		}
	}
	if n := s.conns.Load(); n != 1 {
		t.Fatalf("3 chunked responses opened %d connections, want 1", n)
	}
}

func TestExactLengthReadThenCloseKeepsTheConnection(t *testing.T) {
	s := newCountingServer(t, echo)
	c := &h1.Client{}
	for range 3 {
		resp, err := post(t, c, context.Background(), s.URL, "abc")
		if err != nil {
			t.Fatal(err)
		}
		// As llm's reader does: exactly Content-Length bytes, then Close.
		buf := make([]byte, resp.ContentLength)
		if _, err := io.ReadFull(resp.Body, buf); err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
	}
	if n := s.conns.Load(); n != 1 {
		t.Fatalf("opened %d connections, want 1", n)
	}
}

func TestBodyClosedEarlyClosesItsConnection(t *testing.T) {
	big := strings.Repeat("x", 1<<20)
	s := newCountingServer(t, func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, big) })
	c := &h1.Client{}
	resp, err := post(t, c, context.Background(), s.URL, "")
	if err != nil {
		t.Fatal(err)
	}
	head := make([]byte, 10)
	if _, err := io.ReadFull(resp.Body, head); err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if n := c.Idle(); n != 0 {
		t.Fatalf("a connection with an unread body went back to the pool (%d idle)", n)
	}
	resp, err = post(t, c, context.Background(), s.URL, "")
	if err != nil {
		t.Fatal(err)
	}
	if got := readBody(t, resp); got != big {
		t.Fatalf("second response: %d bytes, want %d", len(got), len(big))
	}
	if n := s.conns.Load(); n != 2 {
		t.Fatalf("opened %d connections, want 2", n)
	}
}

func TestConnectionCloseIsNotReused(t *testing.T) {
	s := newCountingServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Connection", "close")
		echo(w, r)
	})
	postEach(t, &h1.Client{}, s.URL, 3, 0)
	if n := s.conns.Load(); n != 3 {
		t.Fatalf("opened %d connections, want 3 (the server closes each)", n)
	}
}

func TestIdleTimeoutOpensANewConnection(t *testing.T) {
	s := newCountingServer(t, echo)
	postEach(t, &h1.Client{IdleTimeout: 30 * time.Millisecond}, s.URL, 2, 60*time.Millisecond)
	if n := s.conns.Load(); n != 2 {
		t.Fatalf("opened %d connections, want 2 (the first was idle past IdleTimeout)", n)
	}
}

func TestCheckedIdleConnectionIsReused(t *testing.T) {
	// Idle past CheckIdleAfter on a server that keeps it open: the peek
	// finds it open and the next request takes it.
	s := newCountingServer(t, echo)
	postEach(t, &h1.Client{CheckIdleAfter: time.Millisecond}, s.URL, 3, 20*time.Millisecond)
	if n := s.conns.Load(); n != 1 {
		t.Fatalf("opened %d connections, want 1 (each was checked open and reused)", n)
	}
}

func TestEmptyBodyResponseKeepsTheConnection(t *testing.T) {
	s := newCountingServer(t, func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) })
	c := &h1.Client{}
	for range 3 {
		resp, err := post(t, c, context.Background(), s.URL, "a")
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != http.StatusNoContent || readBody(t, resp) != "" {
			t.Fatalf("status %d", resp.StatusCode)
		}
	}
	if n := s.conns.Load(); n != 1 {
		t.Fatalf("opened %d connections, want 1", n)
	}
}

func TestOnlyHTTPURLs(t *testing.T) {
	req, _ := http.NewRequest(http.MethodGet, "https://127.0.0.1:1/", nil)
	_, err := (&h1.Client{}).Do(req)
	if err == nil || !strings.Contains(err.Error(), "only http://") {
		t.Fatalf("https URL: err = %v", err)
	}
}

func TestPasswordIsNotInErrors(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close() // nothing listens there now
	req, _ := http.NewRequest(http.MethodPost, "http://user:s3cret@"+addr+"/v1", bytes.NewReader(nil))
	_, err = (&h1.Client{}).Do(req)
	if err == nil {
		t.Fatal("no error from a closed port")
	}
	if strings.Contains(err.Error(), "s3cret") {
		t.Fatalf("error shows the password: %v", err)
	}
	var ue interface{ Unwrap() error }
	if !errors.As(err, &ue) || !strings.HasPrefix(err.Error(), "Post ") {
		t.Fatalf("error is not net/http's shape (Post \"url\": ...): %v", err)
	}
}
