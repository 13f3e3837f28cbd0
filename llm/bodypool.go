package llm

import (
	"errors"
	"io"
	"sync"
)

// A reply's body is read whole, decoded, and dropped: its buffer is reused
// (the request's body is not: see chatRequest).

// maxPooledBody keeps an unusually large body from staying in the pool.
const maxPooledBody = 64 << 10

var bodyPool sync.Pool // of *[]byte

// getBuf returns a buffer of length n, reused when the pool has one that
// large; putBuf takes it back.
func getBuf(n int) *[]byte {
	p, _ := bodyPool.Get().(*[]byte)
	if p == nil {
		p = new([]byte)
	}
	if cap(*p) < n {
		*p = make([]byte, n)
	}
	*p = (*p)[:n]
	return p
}

// putBuf gives p back to the pool; its bytes must not be used afterwards.
func putBuf(p *[]byte) {
	if cap(*p) <= maxPooledBody {
		bodyPool.Put(p)
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
