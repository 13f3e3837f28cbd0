package serve

import (
	"net/http"
	"strings"
	"testing"
)

// TestConfiguredLimitsAreEnforced checks that the options, not only the
// defaults, bound n, the body and the request's cache tokens.
func TestConfiguredLimitsAreEnforced(t *testing.T) {
	_, url := startServer(t, Options{MaxN: 3, MaxBodyBytes: 2000, MaxRequestTokens: 100, Token: testToken, AdapterUpdates: true})
	cases := []struct {
		name, path string
		body       map[string]any
		want       string
	}{
		{"n over --max-n", "/chat/completions", map[string]any{"messages": msgs("hi"), "n": 4, "max_tokens": 1}, "n must be at most 3"},
		{"body over --max-body-bytes", "/completions", map[string]any{"prompt": strings.Repeat("x", 2000), "max_tokens": 1}, "limit of 2000 bytes"},
		{"lora body over the limit", "/load_lora_adapter", map[string]any{"lora_name": strings.Repeat("x", 2000), "lora_path": "p"}, "limit of 2000 bytes"},
		{"ids over --max-request-tokens", "/completions", map[string]any{"prompt": [][]int{{1, 2, 3}, make([]int, 98)}, "max_tokens": 1}, "holds 101 token ids, more than this server's per-request limit of 100 tokens"},
		{"cache over --max-request-tokens", "/completions", map[string]any{"prompt": []string{"abcdefghij", "abcdefghij"}, "n": 3, "max_tokens": 8}, "needs up to 108 tokens"},
	}
	for _, c := range cases {
		code, b := post(t, url+c.path, c.body)
		if code != http.StatusBadRequest {
			t.Errorf("%s: status %d: %s", c.name, code, b)
			continue
		}
		if _, msg, _ := apiErr(t, b); !strings.Contains(msg, c.want) {
			t.Errorf("%s: %q, want %q", c.name, msg, c.want)
		}
	}
	// At the budget exactly: 2 prompts × n 3 × (10 + 6) = 96 ≤ 100.
	if code, b := post(t, url+"/completions", map[string]any{"prompt": []string{"abcdefghij", "abcdefghij"}, "n": 3, "max_tokens": 6}); code != http.StatusOK {
		t.Errorf("a request within the limits: %d %s", code, b)
	}
}

// TestPromptTooLongForTheContextBeforeTokenizing: a prompt of more bytes
// than the context's tokens can spell is refused as too long for the
// context (the check made before tokenizing); one just inside is
// tokenized and refused, or served, by its token count.
func TestPromptTooLongForTheContextBeforeTokenizing(t *testing.T) {
	_, url := startServer(t, Options{})
	per := 20 // the byte-level tokenizer's longest token, <|object_ref_start|>
	for _, c := range []struct {
		name, path string
		body       map[string]any
		want       string
	}{
		{"chat", "/chat/completions", map[string]any{"messages": msgs(strings.Repeat("a", 2048*per+1)), "max_tokens": 1}, "your prompt is"},
		{"completion", "/completions", map[string]any{"prompt": strings.Repeat("a", 2048*per+1), "max_tokens": 1}, "your prompt is 40961 bytes, more than 2048 tokens can hold"},
		{"one of several", "/completions", map[string]any{"prompt": []string{"a", strings.Repeat("a", 2048*per+1)}, "max_tokens": 1}, "your prompt is 40961 bytes"},
		{"inside the byte bound", "/completions", map[string]any{"prompt": strings.Repeat("a", 2048*per), "max_tokens": 1}, "maximum context length is 2048 tokens. However, you requested"},
	} {
		code, b := post(t, url+c.path, c.body)
		if code != http.StatusBadRequest {
			t.Errorf("%s: status %d: %.200s", c.name, code, b)
			continue
		}
		if _, msg, _ := apiErr(t, b); !strings.Contains(msg, c.want) {
			t.Errorf("%s: %q, want %q", c.name, msg, c.want)
		}
	}
}

func TestCountNumbers(t *testing.T) {
	for raw, want := range map[string]int{`[1,2,3]`: 3, `[[10,-2],[3e5, 4.5]]`: 4, `"a 1 2"`: 0, `["x\"1", 2]`: 1, `[]`: 0, `[ 1 , 22 ,333]`: 3} {
		if got := countNumbers([]byte(raw)); got != want {
			t.Errorf("countNumbers(%s) = %d, want %d", raw, got, want)
		}
	}
}
