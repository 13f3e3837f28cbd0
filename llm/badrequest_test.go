package llm

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// TestBadRequestBodyIsInTheError sends requests to servers that answer 400
// with the bodies real servers send, and checks that the error shows what
// the server said: a 400 is not retried, so its body is all the user gets.
func TestBadRequestBodyIsInTheError(t *testing.T) {
	bodies := map[string]string{
		"openai":     `{"error":{"message":"max_tokens is too large: 99999","type":"BadRequestError","code":400}}`,
		"vllm-flat":  `{"object":"error","message":"This model's maximum context length is 4096 tokens","type":"BadRequestError","code":400}`,
		"no-message": `{"error":{"type":"invalid_request_error","param":"top_k","code":"unsupported_value"}}`,
		"detail":     `{"detail":[{"loc":["body","messages"],"msg":"field required"}]}`,
		"plain":      `prompt is longer than the context window`,
		"string":     `{"error":"model Qwen/Qwen3-9B does not exist"}`,
	}
	want := map[string]string{
		"openai": "max_tokens is too large", "vllm-flat": "maximum context length", "no-message": "unsupported_value",
		"detail": "field required", "plain": "prompt is longer", "string": "does not exist",
	}
	for name, body := range bodies {
		t.Run(name, func(t *testing.T) {
			var calls atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				calls.Add(1)
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusBadRequest)
				_, _ = w.Write([]byte(body))
			}))
			defer srv.Close()
			c := newTestClient(t, nil, srv.URL+"/v1")
			_, err := c.Chat(context.Background(), userReq("speaker", "hi"))
			if err == nil {
				t.Fatal("no error")
			}
			if !strings.Contains(err.Error(), want[name]) || !strings.Contains(err.Error(), "HTTP 400") {
				t.Errorf("error = %v, want the server's %q and the status", err, want[name])
			}
			if n := calls.Load(); n != 1 {
				t.Errorf("%d calls, want 1 (a 400 is not retried)", n)
			}
		})
	}
}
