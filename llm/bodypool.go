package llm

import (
	"errors"
	"io"
	"sync"
)

// A reply's body is read whole, decoded, and dropped, and a request's
// body is dropped once no attempt will send it again (chatRequest): their
// buffers are reused, each kind from a pool of its own (a reply is a few
// hundred bytes, a request some kilobytes).

// maxPooledBody keeps an unusually large body from staying in a pool.
const maxPooledBody = 64 << 10

// bufPool holds *[]byte buffers.
type bufPool struct{ p sync.Pool }

var (
	replyBufs bufPool
	reqBufs   bufPool
)

// get returns a buffer of length n, reused when the pool has one that
// large; put takes it back.
func (bp *bufPool) get(n int) *[]byte {
	p, _ := bp.p.Get().(*[]byte)
	if p == nil {
		p = new([]byte)
	}
	if cap(*p) < n {
		*p = make([]byte, n)
	}
	*p = (*p)[:n]
	return p
}

// put gives p back; its bytes must not be used afterwards.
func (bp *bufPool) put(p *[]byte) {
	if cap(*p) <= maxPooledBody {
		bp.p.Put(p)
	}
}

// bodyReader is the body the doer hands go-openai in place of a reply it
// has read.
type bodyReader struct {
	data   []byte // the part not read yet
	closed bool
}

var errBodyClosed = errors.New("reading a response body after its Close")

func (r *bodyReader) Read(p []byte) (int, error) {
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

func (r *bodyReader) Close() error {
	r.closed, r.data = true, nil
	return nil
}

// byteReader returns a ReadCloser of b: one allocation where
// io.NopCloser(bytes.NewReader(b)) makes two.
func byteReader(b []byte) io.ReadCloser { return &bodyReader{data: b} }
