package serve

import (
	"net/http"
	"strings"
	"testing"
)

// TestConfiguredLimitsAreEnforced checks that the options, not only the
// defaults, bound n, the body and the request's cache tokens.
func TestConfiguredLimitsAreEnforced(t *testing.T) {
	_, url := startServer(t, Options{MaxN: 3, MaxBodyBytes: 2000, MaxRequestTokens: 100})
	cases := []struct {
		name, path string
		body       map[string]any
		want       string
	}{
		{"n over --max-n", "/chat/completions", map[string]any{"messages": msgs("hi"), "n": 4, "max_tokens": 1}, "n must be at most 3"},
		{"body over --max-body-bytes", "/completions", map[string]any{"prompt": strings.Repeat("x", 2000), "max_tokens": 1}, "limit of 2000 bytes"},
		{"lora body over the limit", "/load_lora_adapter", map[string]any{"lora_name": strings.Repeat("x", 2000), "lora_path": "p"}, "limit of 2000 bytes"},
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
