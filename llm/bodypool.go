package llm

import (
	"errors"
	"io"
	"sync"
	"sync/atomic"
)

// Request and reply bodies are the largest allocations of a request (the
// prompt, twice: its messages and its JSON), so their buffers are reused
// once nothing can read them any more.

// maxPooledBody keeps an unusually large body from staying in the pool.
const maxPooledBody = 64 << 10

var bodyPool sync.Pool // of *[]byte

// getBuf returns an empty buffer of capacity at least n, reused when the
// pool has one that large.
func getBuf(n int) []byte {
	if p, ok := bodyPool.Get().(*[]byte); ok {
		if cap(*p) >= n {
			return (*p)[:0]
		}
	}
	return make([]byte, 0, n)
}

// putBuf gives b back to the pool; b must not be used afterwards.
func putBuf(b []byte) {
	if cap(b) == 0 || cap(b) > maxPooledBody {
		return
	}
	b = b[:0]
	bodyPool.Put(&b)
}

// reqBody is a request's JSON, which every attempt sends. The transport
// may read and close a body after RoundTrip returns (it writes the body
// in a goroutine of its own, and a server may answer before reading it
// all), and it opens more through GetBody for redirects and replays; so
// the buffer goes back to the pool only when the request is over (done)
// and every reader opened on it has been closed. A reader left unclosed
// only keeps its buffer out of the pool.
type reqBody struct {
	buf     []byte
	refs    atomic.Int32 // readers open, plus one until done
	pooled  bool         // buf came from getBuf
	getBody func() (io.ReadCloser, error)
}

func newReqBody(buf []byte, pooled bool) *reqBody {
	b := &reqBody{buf: buf, pooled: pooled}
	b.refs.Store(1)
	b.getBody = func() (io.ReadCloser, error) { return b.open(), nil }
	return b
}

// open returns a reader of the body; the caller (the transport) closes it.
func (b *reqBody) open() io.ReadCloser {
	b.refs.Add(1)
	return &bodyReader{data: b.buf, b: b}
}

// done says the request will open no more readers.
func (b *reqBody) done() { b.unref() }

func (b *reqBody) unref() {
	if b.refs.Add(-1) == 0 && b.pooled {
		buf := b.buf
		b.buf = nil
		putBuf(buf)
	}
}

// bodyReader reads a reqBody (or, with b nil, bytes it does not own). A
// transport may close a body from another goroutine than the one reading
// it: the lock keeps a Read from copying out of a buffer that its Close
// has given back, and a Read after Close fails. It has no WriteTo, so
// that every read goes through the lock.
type bodyReader struct {
	mu     sync.Mutex
	data   []byte // the part not read yet
	b      *reqBody
	closed bool
}

var errBodyClosed = errors.New("reading a request body after its Close")

func (r *bodyReader) Read(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return 0, errBodyClosed
	}
	if len(r.data) == 0 {
		return 0, io.EOF
	}
	n := copy(p, r.data)
	r.data = r.data[n:]
	return n, nil
}

// Close releases the reader's hold on its body; a second Close is a no-op.
func (r *bodyReader) Close() error {
	r.mu.Lock()
	first := !r.closed
	r.closed, r.data = true, nil
	r.mu.Unlock()
	if first && r.b != nil {
		r.b.unref()
	}
	return nil
}

// byteReader returns a ReadCloser of b that owns nothing: one allocation
// where io.NopCloser(bytes.NewReader(b)) makes two.
func byteReader(b []byte) io.ReadCloser { return &bodyReader{data: b} }
