//go:build linux

package serve

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
)

// concurrentRSSLimitKB is the documented bound (docs/serve.md) on the peak
// resident memory of `mascot serve` over the tiny test model, default
// limits, while 24 clients each send a 4 MiB body at once.
const concurrentRSSLimitKB = 160 << 10

// TestConcurrentBodiesStayUnderProcessBound sends 24 chat requests of just
// under 4 MiB (the default body limit) at once to `mascot serve` as its own
// process. Each must be refused: 400 (the prompt does not fit the context)
// or 503 with Retry-After (the process's budget of bodies being read is
// spent), and the server's peak RSS (VmHWM, read from /proc) must stay
// under concurrentRSSLimitKB. A request after them is served.
func TestConcurrentBodiesStayUnderProcessBound(t *testing.T) {
	pid, url, killedAtKB := startServeProcess(t, concurrentRSSLimitKB, nil)
	// Half send a chat message of text (refused before it is tokenized:
	// no 2048 tokens spell 4 MiB), half a completion prompt of 2 million
	// token ids (decoded, then refused for the context): each body is just
	// under the 4 MiB limit.
	text := strings.Repeat("a", DefaultMaxBodyBytes-200)
	chatBody, err := json.Marshal(map[string]any{"messages": msgs(text), "max_tokens": 1})
	if err != nil {
		t.Fatal(err)
	}
	ids := strings.Repeat("1,", (DefaultMaxBodyBytes-200)/2)
	idsBody := []byte(`{"max_tokens":1,"prompt":[` + ids + `1]}`)
	var wg sync.WaitGroup
	var mu sync.Mutex
	codes := map[int]int{}
	var fails []string
	for i := range 24 {
		path, body := "/chat/completions", chatBody
		if i%2 == 1 {
			path, body = "/completions", idsBody
		}
		wg.Go(func() {
			resp, err := http.Post(url+path, "application/json", bytes.NewReader(body))
			if err != nil {
				mu.Lock()
				fails = append(fails, err.Error())
				mu.Unlock()
				return
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			mu.Lock()
			defer mu.Unlock()
			codes[resp.StatusCode]++
			switch resp.StatusCode {
			case http.StatusBadRequest:
			case http.StatusServiceUnavailable:
				if resp.Header.Get("Retry-After") == "" {
					fails = append(fails, "503 without Retry-After")
				}
			default:
				fails = append(fails, string(b))
			}
		})
	}
	wg.Wait()
	if len(fails) > 0 {
		t.Fatalf("%d of 24 requests failed otherwise (watchdog killed the server at %d kB, bound %d kB); first: %.300s",
			len(fails), killedAtKB.Load(), concurrentRSSLimitKB, fails[0])
	}
	t.Logf("statuses %v", codes)
	if code, b := post(t, url+"/chat/completions", map[string]any{"messages": msgs("hi"), "max_tokens": 2}); code != http.StatusOK {
		t.Errorf("an ordinary request after the 24: %d %s", code, b)
	}
	hwm, err := procStatusKB(pid, "VmHWM")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("server peak RSS (VmHWM) %d kB, bound %d kB", hwm, concurrentRSSLimitKB)
	if hwm > concurrentRSSLimitKB {
		t.Errorf("server peak RSS %d kB over the bound %d kB", hwm, concurrentRSSLimitKB)
	}
}
