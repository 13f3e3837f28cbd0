package fakevllm

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// BenchmarkHandleChat answers a request shaped like the candidates
// stage's (a system prompt and a 2.4 kB dialogue context): the server's
// CPU per request, which the benchmarks' client shares its cores with.
func BenchmarkHandleChat(b *testing.B) {
	s := Start(b, Options{})
	turn := "I have been feeling really anxious about my exams lately, and I can't sleep. "
	body, err := json.Marshal(map[string]any{
		"model": s.opts.Model, "max_tokens": 64,
		"messages": []map[string]string{
			{"role": "system", "content": "You are a supportive listener. Reply in two sentences."},
			{"role": "user", "content": strings.Repeat(turn, 30)},
		},
	})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		rec := httptest.NewRecorder()
		s.handleChat(rec, httptest.NewRequest(http.MethodPost, "/v1/chat/completions", bytes.NewReader(body)))
		if rec.Code != http.StatusOK {
			b.Fatalf("status %d: %s", rec.Code, rec.Body)
		}
	}
}

// TestChatRefusesBodiesThatAreNotARequest: what encoding/json refused,
// the server's decoder refuses too, with vLLM's 400.
func TestChatRefusesBodiesThatAreNotARequest(t *testing.T) {
	s := Start(t, Options{})
	for _, body := range []string{
		`{"messages": [{"role": "user", "content": "hi"}]`, // cut short
		`{"messages": "hi"}`,           // wrong type
		`{"messages": [], "n": "two"}`, // wrong type
		`not json`,
		``,
	} {
		resp, err := http.Post(s.URL()+"/chat/completions", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		var out struct {
			Error struct{ Message, Type string }
		}
		err = json.NewDecoder(resp.Body).Decode(&out)
		e := out.Error
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest || err != nil || e.Type != "BadRequestError" ||
			!strings.HasPrefix(e.Message, "JSON decode error: ") {
			t.Errorf("%q: status %d, %+v (%v)", body, resp.StatusCode, e, err)
		}
	}
}

// TestDecodeBodyTrustsNoDeclaredLength: a declared length far beyond the
// body neither sizes the buffer nor stops the body from decoding.
func TestDecodeBodyTrustsNoDeclaredLength(t *testing.T) {
	r := httptest.NewRequest(http.MethodPost, "/v1/chat/completions", strings.NewReader(`{"model": "m"}`))
	r.ContentLength = 1 << 62
	var req chatRequest
	if err := decodeBody(r, &req); err != nil || req.Model != "m" {
		t.Fatalf("decodeBody: %+v, %v", req, err)
	}
}
