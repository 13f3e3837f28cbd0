package h1

import (
	"bufio"
	"context"
	"errors"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// Defaults for a Client's zero fields.
const (
	DefaultMaxIdle        = 2
	DefaultIdleTimeout    = 4 * time.Second // under uvicorn's 5 s
	DefaultCheckIdleAfter = 100 * time.Millisecond
	DefaultDialTimeout    = 10 * time.Second
)

// Buffer sizes of a connection: most requests the runner sends (a chat
// body of some kilobytes and its headers) leave in one write.
const (
	readBuf  = 8 << 10
	writeBuf = 16 << 10
)

// Client sends requests to http:// URLs. Its zero value is ready to use;
// it is safe for concurrent use.
type Client struct {
	// MaxIdle bounds the idle connections kept per host (DefaultMaxIdle
	// when 0); a connection freed beyond it is closed.
	MaxIdle int
	// IdleTimeout: a connection idle for longer is closed instead of
	// reused (DefaultIdleTimeout when 0).
	IdleTimeout time.Duration
	// CheckIdleAfter: a connection idle for this long is checked, without
	// blocking, for a close by the server before it is reused
	// (DefaultCheckIdleAfter when 0).
	CheckIdleAfter time.Duration
	// DialTimeout bounds connecting (DefaultDialTimeout when 0).
	DialTimeout time.Duration

	mu   sync.Mutex
	idle map[string][]*conn // per host:port, oldest first
}

// conn is one connection, owned by one request at a time.
type conn struct {
	nc    net.Conn
	br    *bufio.Reader
	bw    *bufio.Writer
	since time.Time // when it went idle
}

// Do sends req and returns its response, whose body the caller must read
// to its end or close. req.URL must be http://. The request's context
// bounds the whole exchange, body included. A request is sent once: one
// that fails on a kept-alive connection is not sent again here (the
// caller's retries count every send).
func (c *Client) Do(req *http.Request) (*http.Response, error) {
	if req.URL == nil || req.URL.Scheme != "http" {
		return nil, urlError(req, errors.New("h1: only http:// URLs"))
	}
	ctx := req.Context()
	if err := ctx.Err(); err != nil {
		return nil, urlError(req, err)
	}
	addr := hostPort(req.URL)
	cn, err := c.get(ctx, addr)
	if err != nil {
		return nil, urlError(req, err)
	}
	resp, err := c.roundTrip(ctx, cn, addr, req)
	if err != nil {
		return nil, urlError(req, ctxErr(ctx, err))
	}
	return resp, nil
}

// roundTrip writes req on cn and reads its response. On failure cn is
// closed.
func (c *Client) roundTrip(ctx context.Context, cn *conn, addr string, req *http.Request) (*http.Response, error) {
	stop := context.AfterFunc(ctx, func() { _ = cn.nc.SetDeadline(aLongTimeAgo) })
	fail := func(err error) (*http.Response, error) {
		stop()
		_ = cn.nc.Close()
		return nil, err
	}
	if err := req.Write(cn.bw); err != nil {
		return fail(err)
	}
	if err := cn.bw.Flush(); err != nil {
		return fail(err)
	}
	for {
		resp, err := http.ReadResponse(cn.br, req)
		if err != nil {
			return fail(err)
		}
		if resp.StatusCode >= 100 && resp.StatusCode < 200 && resp.StatusCode != http.StatusSwitchingProtocols {
			continue // informational; the final response follows
		}
		b := &body{rc: resp.Body, c: c, cn: cn, addr: addr, ctx: ctx, stop: stop, reuse: reusable(req, resp)}
		if resp.Body == http.NoBody {
			b.finish(true)
			return resp, nil
		}
		resp.Body = b
		return resp, nil
	}
}

// reusable says whether the connection may carry another request once
// resp's body is read: the body's end is framed and nobody asked to close.
func reusable(req *http.Request, resp *http.Response) bool {
	framed := resp.ContentLength >= 0 || (len(resp.TransferEncoding) > 0 && resp.TransferEncoding[0] == "chunked")
	return framed && !resp.Close && !req.Close && resp.ProtoAtLeast(1, 1) &&
		resp.StatusCode != http.StatusSwitchingProtocols
}

// aLongTimeAgo is a deadline that has passed: setting it wakes a blocked
// read or write.
var aLongTimeAgo = time.Unix(1, 0)

// urlError wraps err as net/http's client does, the URL without password.
func urlError(req *http.Request, err error) error {
	op := "Get"
	if m := req.Method; m != "" {
		op = m[:1] + strings.ToLower(m[1:])
	}
	u := ""
	if req.URL != nil {
		u = req.URL.Redacted()
	}
	return &url.Error{Op: op, URL: u, Err: err}
}

// hostPort is u's host with the port, 80 when u names none.
func hostPort(u *url.URL) string {
	if u.Port() != "" {
		return u.Host
	}
	return net.JoinHostPort(u.Hostname(), "80")
}

// ctxErr is the error a failed read or write reports: the context's when
// it ended (its end set the deadline that failed the call).
func ctxErr(ctx context.Context, err error) error {
	if cerr := ctx.Err(); cerr != nil {
		return cerr
	}
	return err
}
