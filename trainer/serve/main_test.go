package serve

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"mascot.dev/mascot/internal/syncbuf"
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

// TestRunServesUntilCancelled: the flags as `mascot serve` parses them,
// then Run, which serves until its context ends.
func TestRunServesUntilCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var stdout, stderr syncbuf.Buffer
	opts, err := ParseArgs([]string{"--model", tinyModelDir(t), "--addr", "127.0.0.1:0", "--served-model-name", "demo"}, &stderr)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- Run(ctx, opts, &stdout) }()
	waitFor(t, func() bool { return strings.Contains(stdout.String(), "/v1\n") })
	url := strings.TrimSpace(stdout.String()[strings.Index(stdout.String(), "http://"):])
	if !strings.HasPrefix(url, "http://127.0.0.1:") {
		t.Fatalf("printed %q", stdout.String())
	}
	r := chat(t, url, map[string]any{"model": "demo", "messages": msgs("hi"), "max_tokens": 3})
	if len(r.Choices) != 1 {
		t.Errorf("chat via Run: %+v", r)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Run after cancel: %v", err)
	}
	if err := Run(context.Background(), Options{ModelDir: t.TempDir()}, &stdout); err == nil {
		t.Error("serving an empty dir succeeded")
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
