package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"mascot.dev/mascot/trainer/sample"
	"mascot.dev/mascot/trainer/tokenizer"
)

var testRoot string

func TestMain(m *testing.M) {
	runChildIfAsked()
	dir, err := os.MkdirTemp("", "serve-test")
	if err != nil {
		panic(err)
	}
	testRoot = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func TestModelsListsBaseAndAdapters(t *testing.T) {
	ad := adapterDir(t, 1)
	_, url := startServer(t, Options{Adapters: map[string]string{"kind": ad}})
	code, b := get(t, url+"/models")
	if code != http.StatusOK {
		t.Fatalf("%d %s", code, b)
	}
	var list struct {
		Object string `json:"object"`
		Data   []struct {
			ID     string  `json:"id"`
			Object string  `json:"object"`
			Root   string  `json:"root"`
			Parent *string `json:"parent"`
		} `json:"data"`
	}
	if err := json.Unmarshal(b, &list); err != nil {
		t.Fatal(err)
	}
	if list.Object != "list" || len(list.Data) != 2 {
		t.Fatalf("models: %s", b)
	}
	base, a := list.Data[0], list.Data[1]
	if base.ID != "tiny" || base.Parent != nil || base.Root != filepath.Base(tinyModelDir(t)) || base.Object != "model" {
		t.Errorf("base card %+v", base)
	}
	if a.ID != "kind" || a.Parent == nil || *a.Parent != "tiny" || a.Root != "kind" {
		t.Errorf("adapter card %+v", a)
	}
	if strings.Contains(string(b), ad) || strings.Contains(string(b), tinyModelDir(t)) {
		t.Errorf("/v1/models shows an absolute path: %s", b)
	}
}

func TestChatGreedyMatchesSampler(t *testing.T) {
	s, url := startServer(t, Options{})
	r := chat(t, url, map[string]any{"model": "tiny", "messages": msgs("Hello there"), "temperature": 0, "max_tokens": 12,
		"chat_template_kwargs": map[string]any{"enable_thinking": false}})
	if len(r.Choices) != 1 || r.Choices[0].Message.Role != "assistant" {
		t.Fatalf("choices %+v", r.Choices)
	}
	tok := tokenizer.NewByteLevel()
	prompt, err := tok.EncodeChat([]tokenizer.Message{{Role: "user", Content: "Hello there"}}, tokenizer.TemplateOptions{AddGenerationPrompt: true})
	if err != nil {
		t.Fatal(err)
	}
	want, err := sample.Generate(context.Background(), s.base.model, prompt, sample.Params{MaxTokens: 12, StopTokens: s.base.stops})
	if err != nil {
		t.Fatal(err)
	}
	wantText := string(outputBytes(tok, want.Tokens))
	if r.Choices[0].Message.Content != strings.ToValidUTF8(wantText, "\uFFFD") {
		t.Errorf("content %q, sampler gives %q", r.Choices[0].Message.Content, wantText)
	}
	if r.Usage.PromptTokens != len(prompt) || r.Usage.CompletionTokens != len(want.Tokens) ||
		r.Usage.TotalTokens != len(prompt)+len(want.Tokens) {
		t.Errorf("usage %+v, want prompt %d completion %d", r.Usage, len(prompt), len(want.Tokens))
	}
	if r.Choices[0].FinishReason != want.FinishReason {
		t.Errorf("finish %q, want %q", r.Choices[0].FinishReason, want.FinishReason)
	}
}

// outputBytes is the text of tokens without special tokens.
func outputBytes(tok *tokenizer.Tokenizer, ids []int) []byte {
	var b []byte
	for _, id := range ids {
		if !tok.IsSpecial(id) {
			b = append(b, tok.DecodeBytes([]int{id})...)
		}
	}
	return b
}

func TestSeededChoicesMatchSamplerAndRepeat(t *testing.T) {
	s, url := startServer(t, Options{})
	body := map[string]any{"model": "tiny", "messages": msgs("Tell me"), "n": 2, "temperature": 0.9, "top_p": 0.95,
		"top_k": 50, "seed": 1234, "max_tokens": 20, "logprobs": true}
	a := chat(t, url, body)
	b := chat(t, url, body)
	if len(a.Choices) != 2 || a.Choices[0].Index != 0 || a.Choices[1].Index != 1 {
		t.Fatalf("n=2 gave %+v", a.Choices)
	}
	for i := range a.Choices {
		if a.Choices[i].Message.Content != b.Choices[i].Message.Content {
			t.Errorf("choice %d differs across identical seeded requests: %q vs %q", i, a.Choices[i].Message.Content, b.Choices[i].Message.Content)
		}
	}
	if a.Choices[0].Message.Content == a.Choices[1].Message.Content {
		t.Errorf("the two choices are identical: %q", a.Choices[0].Message.Content)
	}
	prompt, _ := s.base.tok.EncodeChat([]tokenizer.Message{{Role: "user", Content: "Tell me"}}, tokenizer.TemplateOptions{AddGenerationPrompt: true, EnableThinking: true})
	want, err := sample.GenerateN(context.Background(), s.base.model, prompt, 2, sample.Params{Temperature: 0.9, TopP: 0.95,
		TopK: 50, Seed: 1234, MaxTokens: 20, StopTokens: s.base.stops})
	if err != nil {
		t.Fatal(err)
	}
	for i, w := range want {
		got := a.Choices[i].Logprobs.Content
		if len(got) != len(w.Tokens) {
			t.Fatalf("choice %d: %d logprobs, sampler drew %d tokens", i, len(got), len(w.Tokens))
		}
		for k := range got {
			if float32(got[k].Logprob) != w.LogProbs[k] { // the engine's passes give the sampler's bits
				t.Fatalf("choice %d token %d: logprob %v, sampler %v", i, k, got[k].Logprob, w.LogProbs[k])
			}
		}
	}
	c := chat(t, url, map[string]any{"model": "tiny", "messages": msgs("Tell me"), "temperature": 0.9, "seed": 99, "max_tokens": 20})
	if c.Choices[0].Message.Content == a.Choices[0].Message.Content {
		t.Errorf("seed 99 reproduced seed 1234's text %q", c.Choices[0].Message.Content)
	}
}

func TestConcurrentRequestsAreBatchedAndUnchanged(t *testing.T) {
	s, url := startServer(t, Options{MaxBatch: 8})
	bodies := make([]map[string]any, 4)
	alone := make([]string, 4)
	for i := range bodies {
		bodies[i] = map[string]any{"model": "tiny", "messages": msgs(fmt.Sprintf("request %d", i)), "temperature": 0.8,
			"seed": i, "max_tokens": 10}
		alone[i] = chat(t, url, bodies[i]).Choices[0].Message.Content
	}
	gate := make(chan struct{})
	var released sync.Once
	t.Cleanup(func() { released.Do(func() { close(gate) }) })
	var once sync.Once
	var peak int
	var mu sync.Mutex
	s.eng.beforeStep = func() {
		once.Do(func() { <-gate })
	}
	s.eng.observe = func(n int) {
		mu.Lock()
		peak = max(peak, n)
		mu.Unlock()
	}
	got := make([]string, 4)
	var wg sync.WaitGroup
	for i := range bodies {
		wg.Go(func() { got[i] = chat(t, url, bodies[i]).Choices[0].Message.Content })
	}
	// The first request is held at its first step; the others queue (or
	// join it if they arrive before that step).
	waitFor(t, func() bool { return s.eng.running.Load() >= 1 && s.eng.running.Load()+int64(s.eng.waiting()) == 4 })
	released.Do(func() { close(gate) })
	wg.Wait()
	for i := range got {
		if got[i] != alone[i] {
			t.Errorf("request %d: batched %q, alone %q", i, got[i], alone[i])
		}
	}
	if peak != 4 {
		t.Errorf("peak batch %d, want the 4 requests decoded together", peak)
	}
}

func TestStreamingMatchesNonStreaming(t *testing.T) {
	_, url := startServer(t, Options{})
	body := map[string]any{"model": "tiny", "messages": msgs("stream me"), "n": 2, "temperature": 1, "seed": 5, "max_tokens": 16}
	plain := chat(t, url, body)
	body["stream"] = true
	body["stream_options"] = map[string]any{"include_usage": true}
	chunks, done := streamChunks(t, url+"/chat/completions", body)
	if !done {
		t.Fatal("stream did not end with data: [DONE]")
	}
	text := map[int]string{}
	finish := map[int]string{}
	var u *usage
	for _, c := range chunks {
		if c.Object != "chat.completion.chunk" {
			t.Fatalf("chunk object %q", c.Object)
		}
		if c.Usage != nil {
			u = c.Usage
		}
		for _, ch := range c.Choices {
			text[ch.Index] += ch.Delta.Content
			if ch.FinishReason != nil {
				finish[ch.Index] = *ch.FinishReason
			}
		}
	}
	for i, ch := range plain.Choices {
		if text[i] != ch.Message.Content || finish[i] != ch.FinishReason {
			t.Errorf("choice %d: streamed %q (%s), plain %q (%s)", i, text[i], finish[i], ch.Message.Content, ch.FinishReason)
		}
	}
	if u == nil || *u != plain.Usage {
		t.Errorf("stream usage %+v, plain %+v", u, plain.Usage)
	}
}

type chunk struct {
	Object  string `json:"object"`
	Choices []struct {
		Index int `json:"index"`
		Delta struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		} `json:"delta"`
		Text         string  `json:"text"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *usage `json:"usage"`
}

func TestStopStringsTruncate(t *testing.T) {
	_, url := startServer(t, Options{})
	base := map[string]any{"model": "tiny", "messages": msgs("stop test"), "temperature": 1, "seed": 3, "max_tokens": 24}
	full := chat(t, url, base).Choices[0].Message.Content
	stop := ""
	for i := 2; i+1 < len(full) && stop == ""; i++ {
		if full[i] >= ' ' && full[i] < 0x7f && full[i+1] >= ' ' && full[i+1] < 0x7f {
			stop = full[i : i+2]
		}
	}
	if stop == "" {
		t.Fatalf("no ASCII pair in %q to use as a stop string", full)
	}
	base["stop"] = []string{stop}
	got := chat(t, url, base).Choices[0]
	want := full[:strings.Index(full, stop)]
	if got.Message.Content != want || got.FinishReason != "stop" {
		t.Errorf("stop %q: got %q (%s), want %q (stop)", stop, got.Message.Content, got.FinishReason, want)
	}
	base["stream"] = true
	chunks, _ := streamChunks(t, url+"/chat/completions", base)
	var streamed string
	for _, c := range chunks {
		for _, ch := range c.Choices {
			streamed += ch.Delta.Content
		}
	}
	if streamed != want {
		t.Errorf("streamed with stop: %q, want %q", streamed, want)
	}
}

func TestCompletionsTokenIDsAndLogprobs(t *testing.T) {
	s, url := startServer(t, Options{})
	prompt := []int{72, 101, 108, 108, 111}
	code, b := post(t, url+"/completions", map[string]any{"model": "tiny", "prompt": prompt, "max_tokens": 6,
		"temperature": 0, "logprobs": 3, "return_tokens_as_token_ids": true, "return_token_ids": true})
	if code != http.StatusOK {
		t.Fatalf("%d %s", code, b)
	}
	var r struct {
		Object  string `json:"object"`
		Choices []struct {
			Text     string `json:"text"`
			TokenIDs []int  `json:"token_ids"`
			Logprobs struct {
				Tokens        []string             `json:"tokens"`
				TokenLogprobs []float64            `json:"token_logprobs"`
				TopLogprobs   []map[string]float64 `json:"top_logprobs"`
			} `json:"logprobs"`
		} `json:"choices"`
		Usage usage `json:"usage"`
	}
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	c := r.Choices[0]
	if r.Object != "text_completion" || len(c.TokenIDs) != 6 || len(c.Logprobs.Tokens) != 6 || r.Usage.PromptTokens != 5 {
		t.Fatalf("response %s", b)
	}
	ref, err := s.base.model.LogProbs(prompt, c.TokenIDs, 1)
	if err != nil {
		t.Fatal(err)
	}
	for i, id := range c.TokenIDs {
		if c.Logprobs.Tokens[i] != fmt.Sprintf("token_id:%d", id) {
			t.Errorf("token %d named %q", i, c.Logprobs.Tokens[i])
		}
		if math.Abs(c.Logprobs.TokenLogprobs[i]-float64(ref[i])) > 1e-4 {
			t.Errorf("token %d logprob %v, reference forward %v", i, c.Logprobs.TokenLogprobs[i], ref[i])
		}
		top := c.Logprobs.TopLogprobs[i]
		if len(top) != 3 || top[c.Logprobs.Tokens[i]] != c.Logprobs.TokenLogprobs[i] {
			t.Errorf("token %d top logprobs %v", i, top)
		}
	}
	code, b = post(t, url+"/completions", map[string]any{"model": "tiny", "prompt": []string{"ab", "cd"}, "max_tokens": 3, "n": 2, "seed": 1})
	if code != http.StatusOK {
		t.Fatalf("%d %s", code, b)
	}
	var two struct {
		Choices []struct {
			Index int `json:"index"`
		} `json:"choices"`
	}
	_ = json.Unmarshal(b, &two)
	if len(two.Choices) != 4 || two.Choices[3].Index != 3 {
		t.Errorf("two prompts n=2: %s", b)
	}
}

func TestErrors(t *testing.T) {
	_, url := startServer(t, Options{})
	code, b := post(t, url+"/chat/completions", map[string]any{"model": "nope", "messages": msgs("x")})
	if typ, msg, c := apiErr(t, b); code != 404 || c != 404 || typ != "NotFoundError" || msg != "The model `nope` does not exist." {
		t.Errorf("unknown model: %d %s", code, b)
	}
	code, b = post(t, url+"/chat/completions", map[string]any{"model": "tiny", "messages": msgs("x"), "max_tokens": 1 << 20})
	if _, msg, _ := apiErr(t, b); code != 400 || !strings.Contains(msg, "maximum context length is 2048 tokens") {
		t.Errorf("too long: %d %s", code, b)
	}
	code, b = post(t, url+"/chat/completions", map[string]any{"model": "tiny", "messages": msgs("x"), "max_tokens": 50,
		"response_format": map[string]any{"type": "json_schema", "json_schema": map[string]any{"name": "x",
			"schema": map[string]any{"type": "string", "pattern": "a+"}}}})
	if _, msg, _ := apiErr(t, b); code != 400 || !strings.Contains(msg, `unsupported keyword "pattern"`) {
		t.Errorf("bad schema: %d %s", code, b)
	}
	resp, err := http.Post(url+"/chat/completions", "application/json", strings.NewReader("{"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 400 {
		t.Errorf("bad JSON: %d", resp.StatusCode)
	}
}

func TestLoadModelSwapsTheBase(t *testing.T) {
	s, url := startServer(t, Options{})
	body := map[string]any{"model": "tiny", "messages": msgs("swap"), "temperature": 1, "seed": 8, "max_tokens": 12}
	before := chat(t, url, body).Choices[0].Message.Content
	dir := randomModelDir(t, 99)
	if err := s.LoadModel(dir); err == nil {
		t.Fatal("LoadModel without a tokenizer or marker succeeded")
	}
	if err := WriteByteTokenizerMarker(dir); err != nil {
		t.Fatal(err)
	}
	if err := s.LoadModel(dir); err != nil {
		t.Fatal(err)
	}
	after := chat(t, url, body).Choices[0].Message.Content
	if before == after {
		t.Errorf("greedy output unchanged after LoadModel: %q", after)
	}
	if s.ModelID() != "tiny" {
		t.Errorf("model id %q after reload", s.ModelID())
	}
}

func TestHealthAndMetrics(t *testing.T) {
	_, url := startServer(t, Options{})
	root := strings.TrimSuffix(url, "/v1")
	if code, _ := get(t, root+"/health"); code != 200 {
		t.Errorf("health %d", code)
	}
	chat(t, url, map[string]any{"messages": msgs("m"), "max_tokens": 3})
	code, b := get(t, root+"/metrics")
	text := string(b)
	for _, want := range []string{
		"# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running{model_name=\"tiny\"} 0\n",
		"# TYPE vllm:num_requests_waiting gauge\nvllm:num_requests_waiting{model_name=\"tiny\"} 0\n",
		"vllm:request_success_total{model_name=\"tiny\"} 1\n",
	} {
		if code != 200 || !strings.Contains(text, want) {
			t.Errorf("metrics lack %q:\n%s", want, text)
		}
	}
}
