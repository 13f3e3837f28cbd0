package h1_test

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"mascot.dev/mascot/internal/h1"
)

// rawServer accepts connections and runs serve on each; it counts the
// requests serve reports having read.
type rawServer struct {
	ln   net.Listener
	reqs atomic.Int64
}

func newRawServer(t *testing.T, serve func(s *rawServer, c net.Conn)) *rawServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &rawServer{ln: ln}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go serve(s, c)
		}
	}()
	t.Cleanup(func() { _ = ln.Close() })
	return s
}

func (s *rawServer) url() string { return "http://" + s.ln.Addr().String() + "/v1" }

// readRequest reads one request with its body, counting it.
func (s *rawServer) readRequest(br *bufio.Reader) bool {
	req, err := http.ReadRequest(br)
	if err != nil {
		return false
	}
	_, _ = io.Copy(io.Discard, req.Body)
	s.reqs.Add(1)
	return true
}

const okReply = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"

// oneRequestPerConn answers one request per connection, then closes it
// without saying so: the pooled connection is dead when it is next taken.
func oneRequestPerConn(s *rawServer, c net.Conn) {
	defer c.Close()
	if s.readRequest(bufio.NewReader(c)) {
		_, _ = io.WriteString(c, okReply)
	}
}

func TestConnectionTheServerClosedIsNotReused(t *testing.T) {
	s := newRawServer(t, oneRequestPerConn)
	// 20 ms after each: the close arrives, then the check sees it.
	for i, body := range postEach(t, &h1.Client{CheckIdleAfter: time.Millisecond}, s.url(), 3, 20*time.Millisecond) {
		if body != "ok" {
			t.Fatalf("request %d: body %q", i, body)
		}
	}
	if n := s.reqs.Load(); n != 3 {
		t.Fatalf("server read %d requests, want 3", n)
	}
}

func TestRequestOnAClosedConnectionIsNotSentAgain(t *testing.T) {
	// Reused before the check would look: the request fails and is not
	// sent again behind the caller's back (its retries count each send).
	s := newRawServer(t, oneRequestPerConn)
	c := &h1.Client{CheckIdleAfter: time.Hour}
	resp, err := post(t, c, context.Background(), s.url(), "first")
	if err != nil {
		t.Fatal(err)
	}
	readBody(t, resp)
	time.Sleep(20 * time.Millisecond)
	if _, err := post(t, c, context.Background(), s.url(), "second"); err == nil {
		t.Fatal("a request on a connection the server had closed succeeded")
	}
	resp, err = post(t, c, context.Background(), s.url(), "third")
	if err != nil {
		t.Fatalf("the request after the failed one: %v", err)
	}
	readBody(t, resp)
	if n := s.reqs.Load(); n != 2 {
		t.Fatalf("server read %d requests, want 2 (first and third)", n)
	}
}

func TestNoSecondSendAfterTheResponseBegan(t *testing.T) {
	// The first request is answered; the second gets half a status line
	// and a closed connection: the server may have acted on it, so the
	// client reports the failure instead of sending it again.
	s := newRawServer(t, func(s *rawServer, c net.Conn) {
		defer c.Close()
		br := bufio.NewReader(c)
		for n := 0; s.readRequest(br); n++ {
			if n == 0 {
				_, _ = io.WriteString(c, okReply)
				continue
			}
			_, _ = io.WriteString(c, "HTTP/1.1 200 O")
			return
		}
	})
	c := &h1.Client{}
	resp, err := post(t, c, context.Background(), s.url(), "one")
	if err != nil {
		t.Fatal(err)
	}
	readBody(t, resp)
	if _, err := post(t, c, context.Background(), s.url(), "two"); err == nil {
		t.Fatal("a cut response gave no error")
	}
	if n := s.reqs.Load(); n != 2 {
		t.Fatalf("server read %d requests, want 2 (the cut one not sent again)", n)
	}
}

func TestCutBodyIsAnError(t *testing.T) {
	s := newRawServer(t, func(s *rawServer, c net.Conn) {
		defer c.Close()
		if s.readRequest(bufio.NewReader(c)) {
			_, _ = io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly part")
		}
	})
	c := &h1.Client{}
	resp, err := post(t, c, context.Background(), s.url(), "x")
	if err != nil {
		t.Fatal(err)
	}
	_, err = io.ReadAll(resp.Body)
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("reading a cut body: %v, want unexpected EOF", err)
	}
	if c.Idle() != 0 {
		t.Fatal("a connection whose body was cut went back to the pool")
	}
}

func TestCloseDelimitedBodyIsReadToTheEnd(t *testing.T) {
	s := newRawServer(t, func(s *rawServer, c net.Conn) {
		defer c.Close()
		if s.readRequest(bufio.NewReader(c)) {
			_, _ = io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nuntil the end")
		}
	})
	c := &h1.Client{}
	resp, err := post(t, c, context.Background(), s.url(), "x")
	if err != nil {
		t.Fatal(err)
	}
	if got := readBody(t, resp); got != "until the end" {
		t.Fatalf("body %q", got)
	}
	if c.Idle() != 0 {
		t.Fatal("a close-delimited response's connection went back to the pool")
	}
}

func TestInformationalResponseIsSkipped(t *testing.T) {
	s := newRawServer(t, func(s *rawServer, c net.Conn) {
		defer c.Close()
		if s.readRequest(bufio.NewReader(c)) {
			_, _ = io.WriteString(c, "HTTP/1.1 103 Early Hints\r\nLink: </x>\r\n\r\n"+okReply)
		}
	})
	resp, err := post(t, &h1.Client{}, context.Background(), s.url(), "x")
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 || readBody(t, resp) != "ok" {
		t.Fatalf("status %d", resp.StatusCode)
	}
}

// hangingServer reads requests and never answers.
func hangingServer(t *testing.T, body bool) *rawServer {
	return newRawServer(t, func(s *rawServer, c net.Conn) {
		defer c.Close()
		if s.readRequest(bufio.NewReader(c)) && body {
			_, _ = io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc")
		}
		_, _ = io.Copy(io.Discard, c) // until the client closes
	})
}

func TestCancelEndsAWaitForTheResponse(t *testing.T) {
	s := hangingServer(t, false)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	start := time.Now()
	_, err := post(t, &h1.Client{}, ctx, s.url(), "x")
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("cancel took %v to end the request", d)
	}
}

func TestDeadlineEndsAWaitForTheBody(t *testing.T) {
	s := hangingServer(t, true)
	ctx, cancel := context.WithTimeout(context.Background(), 80*time.Millisecond)
	defer cancel()
	c := &h1.Client{}
	resp, err := post(t, c, ctx, s.url(), "x")
	if err != nil {
		t.Fatal(err)
	}
	_, err = io.ReadAll(resp.Body)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want context.DeadlineExceeded", err)
	}
	_ = resp.Body.Close()
	if c.Idle() != 0 {
		t.Fatal("a connection whose read timed out went back to the pool")
	}
}
