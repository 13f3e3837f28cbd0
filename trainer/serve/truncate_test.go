package serve

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// TestTruncatePromptTokensKeepsTheLastTokens: two chats whose messages
// differ only before their last 80 bytes are the same request once each
// keeps its last 40 tokens (the tokenizer is byte-level), so at one seed
// they draw the same completion; usage counts the kept tokens.
func TestTruncatePromptTokensKeepsTheLastTokens(t *testing.T) {
	_, url := startServer(t, Options{})
	tail := strings.Repeat("the same words at the end ", 4)[:80]
	a := "First, something long about one thing. " + tail
	b := "A different beginning that is longer still, about another thing entirely. " + tail
	ask := func(content string, truncate any) chatResp {
		body := map[string]any{"model": "tiny", "messages": msgs(content), "seed": 3, "temperature": 1, "max_tokens": 12}
		if truncate != nil {
			body["truncate_prompt_tokens"] = truncate
		}
		return chat(t, url, body)
	}
	fullA, fullB := ask(a, nil), ask(b, nil)
	if fullA.Usage.PromptTokens == fullB.Usage.PromptTokens {
		t.Fatalf("the two prompts should differ in length untruncated: %d and %d", fullA.Usage.PromptTokens, fullB.Usage.PromptTokens)
	}
	ta, tb := ask(a, 40), ask(b, 40)
	if ta.Usage.PromptTokens != 40 || tb.Usage.PromptTokens != 40 {
		t.Fatalf("prompt_tokens %d and %d, want 40 each", ta.Usage.PromptTokens, tb.Usage.PromptTokens)
	}
	if ta.Choices[0].Message.Content != tb.Choices[0].Message.Content {
		t.Fatalf("same last 40 tokens, same seed, different completions: %q and %q", ta.Choices[0].Message.Content, tb.Choices[0].Message.Content)
	}
	// -1 is the context length: a shorter prompt is kept whole.
	if whole := ask(a, -1); whole.Usage.PromptTokens != fullA.Usage.PromptTokens || whole.Choices[0].Message.Content != fullA.Choices[0].Message.Content {
		t.Fatalf("-1 changed a prompt shorter than the context: %d tokens %q, want %d %q", whole.Usage.PromptTokens,
			whole.Choices[0].Message.Content, fullA.Usage.PromptTokens, fullA.Choices[0].Message.Content)
	}
}

// TestTruncatePromptTokensServesAPromptLongerThanTheContext: a prompt the
// context cannot hold is refused, and served once truncated; bad values
// name the field.
func TestTruncatePromptTokensServesAPromptLongerThanTheContext(t *testing.T) {
	_, url := startServer(t, Options{MaxModelLen: 128})
	// 2,600 bytes: more than 128 tokens could hold whatever their
	// spelling, so the size check before tokenizing refuses it untruncated.
	long := strings.Repeat("a long story ", 200)
	body := map[string]any{"model": "tiny", "messages": msgs(long), "seed": 1, "max_tokens": 8}
	if code, out := post(t, url+"/chat/completions", body); code != http.StatusBadRequest {
		t.Fatalf("untruncated: %d %s, want 400", code, out)
	}
	body["truncate_prompt_tokens"] = 100
	if r := chat(t, url, body); r.Usage.PromptTokens != 100 || r.Usage.CompletionTokens == 0 {
		t.Fatalf("truncated to 100: usage %+v", r.Usage)
	}
	// The same for /v1/completions with a text prompt.
	comp := map[string]any{"model": "tiny", "prompt": long, "seed": 1, "max_tokens": 8}
	if code, out := post(t, url+"/completions", comp); code != http.StatusBadRequest {
		t.Fatalf("completions, untruncated: %d %s, want 400", code, out)
	}
	comp["truncate_prompt_tokens"] = 100
	code, out := post(t, url+"/completions", comp)
	var cr struct {
		Usage usage `json:"usage"`
	}
	if err := json.Unmarshal(out, &cr); code != http.StatusOK || err != nil || cr.Usage.PromptTokens != 100 {
		t.Fatalf("completions truncated to 100: %d %s", code, out)
	}
	for _, bad := range []any{0, -2, 129} {
		body["truncate_prompt_tokens"] = bad
		code, out := post(t, url+"/chat/completions", body)
		_, msg, _ := apiErr(t, out)
		if code != http.StatusBadRequest || !strings.Contains(msg, "truncate_prompt_tokens") {
			t.Fatalf("truncate_prompt_tokens %v: %d %s", bad, code, out)
		}
	}
}
