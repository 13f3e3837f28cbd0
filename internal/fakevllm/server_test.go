package fakevllm

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func post(t *testing.T, url string, body any) (int, http.Header, []byte) {
	t.Helper()
	b, _ := json.Marshal(body)
	resp, err := http.Post(url, "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, out
}

type chatResp struct {
	Model   string `json:"model"`
	Choices []struct {
		Index   int `json:"index"`
		Message struct {
			Content string `json:"content"`
		} `json:"message"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Usage struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
	} `json:"usage"`
}

func chat(t *testing.T, s *Server, req map[string]any) chatResp {
	t.Helper()
	code, _, body := post(t, s.URL()+"/chat/completions", req)
	if code != 200 {
		t.Fatalf("status %d: %s", code, body)
	}
	var r chatResp
	if err := json.Unmarshal(body, &r); err != nil {
		t.Fatalf("decoding %s: %v", body, err)
	}
	return r
}

func msgs(sys, user string) []map[string]string {
	return []map[string]string{{"role": "system", "content": sys}, {"role": "user", "content": user}}
}

func TestChatDeterministicAndChoicesDiffer(t *testing.T) {
	s := Start(t, Options{})
	req := map[string]any{"model": "Qwen/Qwen3-8B", "messages": msgs("Be brief.", "Hello"), "n": 3, "seed": 7}
	a, b := chat(t, s, req), chat(t, s, req)
	if len(a.Choices) != 3 || a.Usage.PromptTokens == 0 || a.Usage.CompletionTokens == 0 {
		t.Fatalf("bad response %+v", a)
	}
	for i := range a.Choices {
		if a.Choices[i].Message.Content != b.Choices[i].Message.Content {
			t.Errorf("choice %d not deterministic", i)
		}
	}
	if a.Choices[0].Message.Content == a.Choices[1].Message.Content {
		t.Errorf("choices 0 and 1 are equal: %q", a.Choices[0].Message.Content)
	}
	req["seed"] = 8
	if c := chat(t, s, req); c.Choices[0].Message.Content == a.Choices[0].Message.Content {
		t.Errorf("seed does not change content")
	}
}

func TestDirectivePersonaAndJudgePatterns(t *testing.T) {
	s := Start(t, Options{})
	d := chat(t, s, map[string]any{"messages": msgs(
		"You are the Director. Agents: Alice, Bob, Carol.\nAnswer with Agent, Action and Tone.", "Who speaks next?")})
	txt := d.Choices[0].Message.Content
	if !strings.HasPrefix(txt, "Agent: ") || !strings.Contains(txt, "\nAction: ") || !strings.Contains(txt, "\nTone: ") {
		t.Fatalf("directive shape: %q", txt)
	}
	name := strings.TrimPrefix(strings.SplitN(txt, "\n", 2)[0], "Agent: ")
	if name != "Alice" && name != "Bob" && name != "Carol" {
		t.Fatalf("directive names %q", name)
	}
	sp := chat(t, s, map[string]any{"messages": msgs(
		"You are Alice, a cheerful baker.\nDirective:\nAgent: Alice\nAction: ask a question\nTone: warm", "Hi")})
	if txt := sp.Choices[0].Message.Content; !strings.HasPrefix(txt, "I'm Alice.") ||
		!strings.HasSuffix(txt, "[directive: ask a question | warm]") {
		t.Fatalf("speaker: %q", txt)
	}
	schema := map[string]any{"type": "object", "required": []string{"score", "reason"}, "properties": map[string]any{
		"score": map[string]any{"type": "integer", "minimum": 1, "maximum": 10}, "reason": map[string]any{"type": "string"}}}
	j := chat(t, s, map[string]any{"messages": msgs("Rate the answer.", "..."), "response_format": map[string]any{
		"type": "json_schema", "json_schema": map[string]any{"name": "score", "schema": schema}}})
	var v struct {
		Score  *int    `json:"score"`
		Reason *string `json:"reason"`
	}
	if err := json.Unmarshal([]byte(j.Choices[0].Message.Content), &v); err != nil || v.Score == nil || v.Reason == nil ||
		*v.Score < 1 || *v.Score > 10 {
		t.Fatalf("judge JSON %q: %v", j.Choices[0].Message.Content, err)
	}
}

func TestLoRAStatusCodesAndModels(t *testing.T) {
	s := Start(t, Options{CheckAdapterPath: true})
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "adapter_config.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		path   string
		body   map[string]any
		status int
		msg    string
	}{
		{"/load_lora_adapter", map[string]any{"lora_name": "a"}, 400, "Both 'lora_name' and 'lora_path' must be provided."},
		{"/load_lora_adapter", map[string]any{"lora_name": "a", "lora_path": dir + "/nope"}, 404, "No adapter found for"},
		{"/load_lora_adapter", map[string]any{"lora_name": "a", "lora_path": dir}, 200, "Success: LoRA adapter 'a' added successfully."},
		{"/load_lora_adapter", map[string]any{"lora_name": "a", "lora_path": dir}, 400, "The lora adapter 'a' has already been loaded."},
		{"/unload_lora_adapter", map[string]any{"lora_name": "b"}, 404, "The lora adapter 'b' cannot be found."},
	}
	for _, c := range cases {
		code, _, body := post(t, s.URL()+c.path, c.body)
		if code != c.status || !strings.Contains(string(body), c.msg) {
			t.Errorf("%s %v: %d %s", c.path, c.body, code, body)
		}
	}
	resp, err := http.Get(s.URL() + "/models")
	if err != nil {
		t.Fatal(err)
	}
	var ml struct {
		Data []struct {
			ID     string  `json:"id"`
			Parent *string `json:"parent"`
		} `json:"data"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&ml)
	resp.Body.Close()
	if len(ml.Data) != 2 || ml.Data[1].ID != "a" || ml.Data[1].Parent == nil || *ml.Data[1].Parent != "Qwen/Qwen3-8B" {
		t.Fatalf("models: %+v", ml)
	}
	if r := chat(t, s, map[string]any{"model": "a", "messages": msgs("x", "y")}); r.Model != "a" {
		t.Errorf("adapter model echoed as %q", r.Model)
	}
	code, _, body := post(t, s.URL()+"/chat/completions", map[string]any{"model": "zzz", "messages": msgs("x", "y")})
	if code != 404 || !strings.Contains(string(body), "The model `zzz` does not exist.") {
		t.Errorf("unknown model: %d %s", code, body)
	}
	if code, _, _ := post(t, s.URL()+"/unload_lora_adapter", map[string]any{"lora_name": "a"}); code != 200 {
		t.Errorf("unload: %d", code)
	}
}

func TestScriptedFaultsAndCounters(t *testing.T) {
	s := Start(t, Options{Script: []Fault{FaultRateLimit, FaultServerError, FaultMalformed, FaultTruncated, FaultEmpty}})
	req := map[string]any{"messages": msgs("x", "y")}
	code, h, _ := post(t, s.URL()+"/chat/completions", req)
	if code != 429 || h.Get("Retry-After") != "1" {
		t.Errorf("429: %d %q", code, h.Get("Retry-After"))
	}
	if code, _, body := post(t, s.URL()+"/chat/completions", req); code != 500 || !strings.Contains(string(body), `"error"`) {
		t.Errorf("500: %d %s", code, body)
	}
	for _, f := range []string{"malformed", "truncated"} {
		code, _, body := post(t, s.URL()+"/chat/completions", req)
		if code != 200 || json.Valid(body) {
			t.Errorf("%s: %d valid=%v", f, code, json.Valid(body))
		}
	}
	if r := chat(t, s, req); r.Choices[0].Message.Content != "" {
		t.Errorf("empty fault gave %q", r.Choices[0].Message.Content)
	}
	c := s.Counters()
	if c.Served["/v1/chat/completions"] != 5 || c.Faults[FaultRateLimit] != 1 || c.Faults[FaultEmpty] != 1 {
		t.Errorf("counters %+v", c)
	}
}

func TestAPIKeyAndLegacyErrors(t *testing.T) {
	s := Start(t, Options{APIKey: "k", LegacyErrors: true})
	if code, _, _ := post(t, s.URL()+"/chat/completions", map[string]any{"messages": msgs("x", "y")}); code != 401 {
		t.Errorf("no key: %d", code)
	}
	req, _ := http.NewRequest("POST", s.URL()+"/unload_lora_adapter", strings.NewReader(`{"lora_name":"q"}`))
	req.Header.Set("Authorization", "Bearer k")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 404 || !strings.Contains(string(body), `"object":"error"`) {
		t.Errorf("legacy error: %d %s", resp.StatusCode, body)
	}
}

func TestKillRefusesConnections(t *testing.T) {
	s := Start(t, Options{})
	s.Kill()
	if _, err := http.Get(s.URL() + "/models"); err == nil {
		t.Fatal("request to a killed server succeeded")
	}
}

func TestDirectiveFromBulletedRoster(t *testing.T) {
	s := Start(t, Options{})
	sys := "You are the Director.\nThe agents:\n- Dana Lee (Listener): listens\n- Omar (Planner): plans\n" +
		"Write Agent, Action and Tone."
	for seed := 0; seed < 6; seed++ {
		r := chat(t, s, map[string]any{"messages": msgs(sys, "next?"), "seed": seed})
		line := strings.SplitN(r.Choices[0].Message.Content, "\n", 2)[0]
		if line != "Agent: Dana Lee" && line != "Agent: Omar" {
			t.Fatalf("seed %d: %q", seed, line)
		}
	}
}
