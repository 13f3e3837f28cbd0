package llm

import (
	"context"
	"sync"
	"testing"
	"time"

	"mascot.dev/mascot/internal/fakevllm"
)

// newTestClient builds a client with one endpoint "main" over urls, used by
// every role (judge included, explicitly).
func newTestClient(t testing.TB, mod func(*Endpoint, *Config), urls ...string) *Client {
	t.Helper()
	ep := Endpoint{Name: "main", URLs: urls, Model: "Qwen/Qwen3-8B", Concurrency: 16, Timeout: 5 * time.Second,
		TotalTimeout: 30 * time.Second, Retries: 4, BackoffBase: 5 * time.Millisecond, BackoffMax: 50 * time.Millisecond,
		Cooldown: 50 * time.Millisecond}
	cfg := Config{Roles: map[string]string{"judge": "main"}, Default: "main", Seed: 1}
	if mod != nil {
		mod(&ep, &cfg)
	}
	cfg.Endpoints = append([]Endpoint{ep}, cfg.Endpoints...)
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func userReq(role, text string) Request {
	return Request{Role: role, Messages: []Message{{Role: "system", Content: "Be brief."}, {Role: "user", Content: text}}}
}

// traces collects trace events.
type traces struct {
	mu sync.Mutex
	ev []TraceEvent
}

func (tr *traces) add(e TraceEvent) { tr.mu.Lock(); tr.ev = append(tr.ev, e); tr.mu.Unlock() }

func (tr *traces) all() []TraceEvent {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return append([]TraceEvent(nil), tr.ev...)
}

// runMany sends n requests from workers goroutines; after each completion
// it calls after(doneSoFar). It returns the errors, indexed by request.
func runMany(t testing.TB, c *Client, n, workers int, after func(int)) []error {
	t.Helper()
	errs := make([]error, n)
	jobs := make(chan int)
	var wg sync.WaitGroup
	var mu sync.Mutex
	done := 0
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				_, err := c.Chat(context.Background(), userReq("speaker", "request "+itoa(i)))
				errs[i] = err
				mu.Lock()
				done++
				d := done
				mu.Unlock()
				if after != nil {
					after(d)
				}
			}
		}()
	}
	for i := 0; i < n; i++ {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	return errs
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	var b []byte
	for ; i > 0; i /= 10 {
		b = append([]byte{byte('0' + i%10)}, b...)
	}
	return string(b)
}

func servedChat(s *fakevllm.Server) int64 { return s.Counters().Served["/v1/chat/completions"] }
