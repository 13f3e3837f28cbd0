package llm

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// The pooled request body goes back to the pool only when the request is
// done and every reader the transport opened is closed; a reader closed
// early cannot read the buffer any more.
func TestReqBodyReturnsAfterLastReader(t *testing.T) {
	b := newReqBody(append(getBuf(16), `{"model":"m"}`...), true)
	r1, r2 := b.open(), b.open()
	b.done()
	if got, err := io.ReadAll(r1); err != nil || string(got) != `{"model":"m"}` {
		t.Fatalf("first reader: %q %v", got, err)
	}
	_ = r1.Close()
	_ = r1.Close() // a second Close must not release the body twice
	if b.buf == nil {
		t.Fatal("the buffer went back to the pool while a reader was open")
	}
	_ = r2.Close()
	if b.buf != nil {
		t.Fatal("the buffer was not given back after the last reader closed")
	}
	if _, err := r2.Read(make([]byte, 4)); !errors.Is(err, errBodyClosed) {
		t.Fatalf("read after Close: %v, want errBodyClosed", err)
	}
}

// A redirect that keeps the body (307) replays it through GetBody: the
// server sees the same bytes at both URLs, and the buffer is given back
// once the request is over.
func TestReqBodyReplayedOnRedirect(t *testing.T) {
	var mu sync.Mutex
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		got = append(got, string(body))
		mu.Unlock()
		if r.URL.Path == "/a" {
			http.Redirect(w, r, "/b", http.StatusTemporaryRedirect)
			return
		}
		_, _ = io.WriteString(w, "ok")
	}))
	defer srv.Close()
	const want = `{"model":"m","messages":[]}`
	b := newReqBody(append(getBuf(64), want...), true)
	req, err := http.NewRequest(http.MethodPost, srv.URL+"/a", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Body, req.ContentLength, req.GetBody = b.open(), int64(len(want)), b.getBody
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	b.done()
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 2 || got[0] != want || got[1] != want {
		t.Fatalf("server received %q, want the body twice", got)
	}
	if b.buf != nil && b.refs.Load() == 0 {
		t.Fatal("no reader open, and the buffer was not given back")
	}
}
