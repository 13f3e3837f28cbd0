//go:build unix

package h1_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"mascot.dev/mascot/internal/benchdb"
	"mascot.dev/mascot/internal/h1"
)

// BenchmarkPost sends the runner's kind of request (a 2.4 kB JSON body,
// a 600-byte reply) from 64 goroutines at once through h1 and through
// net/http's Transport, to a server in the same process. cpu-ms/op is the
// process's CPU per request, the server's share included (the same for
// both); the difference between the two is the clients'. Interleave them
// with -count:
//
//	go test ./internal/h1 -run '^$' -bench Post -count 5
func BenchmarkPost(b *testing.B) {
	reply := `{"choices":[{"message":{"content":"` + strings.Repeat("I hear you. ", 45) + `"}}]}`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, reply)
	}))
	defer srv.Close()
	body := []byte(`{"model":"q","messages":[{"role":"system","content":"` + strings.Repeat("You are The Anchor. ", 120) + `"}]}`)
	clients := map[string]interface {
		Do(*http.Request) (*http.Response, error)
	}{
		"h1":        &h1.Client{MaxIdle: 72},
		"transport": &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 72}},
	}
	for _, name := range []string{"h1", "transport"} {
		c := clients[name]
		b.Run(name, func(b *testing.B) {
			b.SetParallelism(32) // 64 goroutines on 2 CPUs
			defer benchdb.ReportCPU(b)()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					req, _ := http.NewRequest(http.MethodPost, srv.URL+"/v1/chat/completions", bytes.NewReader(body))
					req.Header.Set("Content-Type", "application/json")
					resp, err := c.Do(req)
					if err != nil {
						b.Error(err)
						return
					}
					n, _ := io.Copy(io.Discard, resp.Body)
					_ = resp.Body.Close()
					if n != int64(len(reply)) {
						b.Errorf("reply of %d bytes, want %d", n, len(reply))
						return
					}
				}
			})
		})
	}
}
