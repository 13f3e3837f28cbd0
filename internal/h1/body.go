package h1

import (
	"context"
	"io"
	"sync"
)

// body is a response body: the framing reader http.ReadResponse gave,
// which hands the connection back to the pool at its end. (For a body of
// known length that reader returns io.EOF with the last bytes, so a
// reader that stops after Content-Length bytes reaches the end too.)
type body struct {
	rc    io.ReadCloser
	c     *Client
	cn    *conn
	addr  string
	ctx   context.Context
	stop  func() bool // stops the context watch; false once it fired
	reuse bool
	once  sync.Once
}

// Read reads the body; at its end the connection goes back to the pool.
func (b *body) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	switch {
	case err == io.EOF:
		b.finish(true)
	case err != nil:
		b.finish(false)
		err = ctxErr(b.ctx, err)
	}
	return n, err
}

// Close ends the response. A body not read to its end closes the
// connection rather than wait for the rest.
func (b *body) Close() error {
	b.finish(false)
	return nil
}

// finish releases the connection once: to the pool when ok and nothing
// ended the request's context meanwhile, else closed.
func (b *body) finish(ok bool) {
	b.once.Do(func() {
		if b.stop() && ok && b.reuse {
			b.c.put(b.addr, b.cn)
			return
		}
		_ = b.cn.nc.Close()
	})
}
