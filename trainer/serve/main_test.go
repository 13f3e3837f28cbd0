package serve

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"

	"mascot.dev/mascot/trainer/qwen3"
	"mascot.dev/mascot/trainer/tokenizer"
)

func TestParseArgs(t *testing.T) {
	o, err := ParseArgs([]string{"--model", "m", "--lora", "a=/x", "--lora", "b=/y", "--addr", "127.0.0.1:9"}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if o.ModelDir != "m" || o.Addr != "127.0.0.1:9" || o.Adapters["a"] != "/x" || o.Adapters["b"] != "/y" {
		t.Errorf("options %+v", o)
	}
	o, err = ParseArgs([]string{"--model", "m", "--max-n", "4", "--max-body-bytes", "1000", "--max-request-tokens", "99", "--prefix-cache-bytes", "-1"}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if o.MaxN != 4 || o.MaxBodyBytes != 1000 || o.MaxRequestTokens != 99 || o.PrefixCacheBytes != -1 {
		t.Errorf("limits %+v", o)
	}
	for _, bad := range [][]string{{}, {"--model", "m", "--lora", "nodir"}, {"--model", "m", "--lora", "a=1", "--lora", "a=2"}, {"--model", "m", "extra"}} {
		if _, err := ParseArgs(bad, &bytes.Buffer{}); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

// syncBuffer is a bytes.Buffer safe for a writer and a reader goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestMainServesUntilCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var stdout, stderr syncBuffer
	code := make(chan int, 1)
	go func() {
		code <- mainContext(ctx, []string{"--model", tinyModelDir(t), "--addr", "127.0.0.1:0", "--served-model-name", "demo"}, &stdout, &stderr)
	}()
	waitFor(t, func() bool { return strings.Contains(stdout.String(), "/v1\n") })
	url := strings.TrimSpace(stdout.String()[strings.Index(stdout.String(), "http://"):])
	if !strings.HasPrefix(url, "http://127.0.0.1:") {
		t.Fatalf("printed %q", stdout.String())
	}
	r := chat(t, url, map[string]any{"model": "demo", "messages": msgs("hi"), "max_tokens": 3})
	if len(r.Choices) != 1 {
		t.Errorf("chat via Main: %+v", r)
	}
	cancel()
	if c := <-code; c != 0 {
		t.Errorf("exit code %d, stderr %s", c, stderr.String())
	}
	if c := mainContext(context.Background(), []string{"--model", t.TempDir()}, &stdout, &stderr); c != 1 {
		t.Errorf("serving an empty dir exited %d, want 1", c)
	}
}

func TestNewFromModelServesAnInMemoryModel(t *testing.T) {
	m, err := qwen3.NewRandom(qwen3.Tiny(), 5)
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewFromModel(m, tokenizer.NewByteLevel(), "mem", Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	url, err := s.Start()
	if err != nil {
		t.Fatal(err)
	}
	if s.ModelID() != "mem" {
		t.Errorf("model id %q", s.ModelID())
	}
	if r := chat(t, url, map[string]any{"model": "mem", "messages": msgs("hi"), "max_tokens": 2}); r.Usage.CompletionTokens == 0 {
		t.Errorf("no tokens: %+v", r)
	}
}
