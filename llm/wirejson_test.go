package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"mascot.dev/mascot/internal/fakevllm"
)

// hostile are strings that exercise every branch of encoding/json's string
// escaping: quotes, backslashes, control characters, HTML characters,
// U+2028/U+2029, DEL, multi-byte runes, invalid and truncated UTF-8.
var hostile = []string{"", "plain", `"quoted" \back\slash`, "\b\f\n\r\t\x00\x01\x1f\x7f", "<b>&amp;</b>",
	"line\u2028sep\u2029para", "ünïcödé 日本語 🙂", "bad\xffbyte\xc3", "\xe2\x80", "\xed\xa0\x80surrogate",
	"trailing\\", "\u00a0nbsp\ufeffbom", "\xf4\x90\x80\x80 beyond U+10FFFF"}

func TestAppendWireRequestIsJSONMarshal(t *testing.T) {
	schema := json.RawMessage(`{"type":"object", "properties":{"a<b":{"type":"string"}}}`)
	floats := []float64{0, 1, 0.7, -0.5, 1.05, 1e-7, 2.5e-9, 1e21, 123456789012345678901234.0, math.SmallestNonzeroFloat64,
		math.MaxFloat64, 1e20, 0.000001}
	ints := []int{0, 1, -1, 42, math.MaxInt64, math.MinInt64}
	for i := 0; i < 200; i++ {
		f := func(k int) *float64 {
			if (i+k)%4 == 0 {
				return nil
			}
			return &floats[(i*7+k)%len(floats)]
		}
		n := func(k int) *int {
			if (i+k)%3 == 0 {
				return nil
			}
			return &ints[(i*5+k)%len(ints)]
		}
		w := wireRequest{Model: hostile[i%len(hostile)], MaxTokens: ints[i%len(ints)], N: ints[(i/2)%len(ints)],
			Stream: i%5 == 0, Seed: n(1), Temperature: f(1), TopP: f(2), TopK: n(2), RepetitionPenalty: f(3),
			TruncatePromptTokens: n(3)}
		for j := 0; j < i%4; j++ {
			w.Messages = append(w.Messages, wireMessage{Role: hostile[(i+j)%len(hostile)], Content: hostile[(i*3+j)%len(hostile)]})
		}
		if w.Messages == nil {
			w.Messages = []wireMessage{}
		}
		switch i % 3 {
		case 1:
			w.Stop = []string{hostile[i%len(hostile)], "</s>"}
		case 2:
			w.Stop = []string{}
		}
		if i%6 == 1 {
			w.ChatTemplateKwargs = map[string]any{"enable_thinking": i%12 == 1}
		}
		if i%8 == 3 {
			w.ResponseFormat = &openai.ChatCompletionResponseFormat{Type: openai.ChatCompletionResponseFormatTypeJSONSchema,
				JSONSchema: &openai.ChatCompletionResponseFormatJSONSchema{Name: hostile[i%len(hostile)], Schema: schema, Strict: true}}
		}
		checkWireRequest(t, &w)
	}
	// What encoding/json rejects is left to it.
	nan, inf := math.NaN(), math.Inf(-1)
	for _, w := range []wireRequest{{Messages: []wireMessage{}, Temperature: &nan}, {Messages: []wireMessage{}, RepetitionPenalty: &inf}} {
		if _, ok := appendWireRequest(nil, &w); ok {
			t.Errorf("appendWireRequest encoded %v, which json.Marshal rejects", w)
		}
	}
}

func checkWireRequest(t *testing.T, w *wireRequest) {
	t.Helper()
	want, err := json.Marshal(w)
	got, ok := appendWireRequest(nil, w)
	if ok != (err == nil) {
		t.Fatalf("appendWireRequest ok %v, json.Marshal error %v", ok, err)
	}
	if ok && !bytes.Equal(got, want) {
		t.Fatalf("appendWireRequest:\n got %s\nwant %s", got, want)
	}
}

func TestAppendResponseJSONIsJSONMarshal(t *testing.T) {
	for i := 0; i < 100; i++ {
		r := Response{PromptTokens: i * 1000, CompletionTokens: -i, Latency: time.Duration(i) * 7919 * time.Microsecond,
			Attempts: i % 5, Cached: i%2 == 0, ModelID: hostile[i%len(hostile)], URL: hostile[(i+3)%len(hostile)],
			Counted: i%3 == 0, RequestIDs: []string{"run.1"}}
		switch i % 4 {
		case 1:
			r.Choices = []string{}
		case 2, 3:
			r.Choices = []string{hostile[i%len(hostile)], hostile[(i+1)%len(hostile)]}
			r.Raw = []string{"<think>" + hostile[(i+2)%len(hostile)] + "</think>", ""}
		}
		if i%5 == 2 {
			r.FinishReasons = []string{"stop", hostile[i%len(hostile)]}
		}
		checkResponse(t, r)
	}
}

// checkAppend checks that appending v's JSON with enc writes what
// json.Marshal(v) writes.
func checkAppend[T any](t *testing.T, name string, enc func([]byte, T) []byte, v T) {
	t.Helper()
	want, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if got := enc(nil, v); !bytes.Equal(got, want) {
		t.Fatalf("%s:\n got %s\nwant %s", name, got, want)
	}
}

func checkResponse(t *testing.T, r Response) {
	t.Helper()
	checkAppend(t, "AppendResponseJSON", AppendResponseJSON, r)
}

// FuzzAppendJSON checks both encoders against encoding/json on arbitrary
// strings and numbers.
func FuzzAppendJSON(f *testing.F) {
	for i, s := range hostile {
		f.Add(s, hostile[(i+1)%len(hostile)], float64(i)/3, int64(i)-3)
	}
	f.Fuzz(func(t *testing.T, a, b string, x float64, n int64) {
		k := int(n)
		w := wireRequest{Model: a, Messages: []wireMessage{{Role: "system", Content: b}, {Role: a, Content: ""}, {Role: "user", Content: a + b}},
			MaxTokens: k, N: -k, Stop: []string{b, a}, Seed: &k, Temperature: &x, TopP: &x, TopK: &k, RepetitionPenalty: &x,
			TruncatePromptTokens: &k}
		checkWireRequest(t, &w)
		checkMessages(t, []Message{{Role: a, Content: b}, {Role: "user"}, {Content: a + b}})
		checkResponse(t, Response{Choices: []string{a, b}, Raw: []string{b}, FinishReasons: []string{a}, PromptTokens: k,
			CompletionTokens: -k, Latency: time.Duration(n), Attempts: k, ModelID: b, URL: a})
	})
}

// BenchmarkRequestJSON compares the hand-written encoders with
// encoding/json on the candidates stage's shape: a system prompt and a
// 2.5 kB dialogue, and its reply.
//
//	go test -run '^$' -bench RequestJSON -benchmem ./llm
func BenchmarkRequestJSON(b *testing.B) {
	dialogue := strings.Repeat("Seeker: I can't sleep since I lost my job & I feel \"stuck\".\nSupporter: That sounds hard.\n", 28)
	w := wireRequest{Model: "Qwen/Qwen3-8B", Messages: []wireMessage{{Role: "system", Content: "You are a supportive companion."},
		{Role: "user", Content: dialogue}}, MaxTokens: 256, Seed: ip(12345), Temperature: fp(0.7), TopP: fp(0.9), TopK: ip(20)}
	r := Response{Choices: []string{"I hear you. Losing a job can shake everything."}, FinishReasons: []string{"stop"},
		PromptTokens: 700, CompletionTokens: 12, Latency: 21 * time.Millisecond, Attempts: 1, ModelID: "Qwen/Qwen3-8B",
		URL: "http://127.0.0.1:8000/v1"}
	b.Run("body/json.Marshal", func(b *testing.B) {
		for b.Loop() {
			_, _ = json.Marshal(w)
		}
	})
	b.Run("body/append", func(b *testing.B) {
		for b.Loop() {
			_, _ = appendWireRequest(make([]byte, 0, 3200), &w)
		}
	})
	b.Run("reply/json.Marshal", func(b *testing.B) {
		for b.Loop() {
			_, _ = json.Marshal(r)
		}
	})
	b.Run("reply/append", func(b *testing.B) {
		for b.Loop() {
			_ = AppendResponseJSON(nil, r)
		}
	})
}

func TestAppendMessagesJSONIsJSONMarshal(t *testing.T) {
	checkMessages(t, nil)
	checkMessages(t, []Message{})
	for i := range hostile {
		var msgs []Message
		for j := 0; j <= i%3; j++ {
			msgs = append(msgs, Message{Role: hostile[(i+j)%len(hostile)], Content: hostile[(i*5+j)%len(hostile)]})
		}
		checkMessages(t, msgs)
	}
}

func checkMessages(t *testing.T, msgs []Message) {
	t.Helper()
	checkAppend(t, "AppendMessagesJSON", AppendMessagesJSON, msgs)
	if got, want := MessagesJSON(msgs), string(AppendMessagesJSON(nil, msgs)); got != want {
		t.Errorf("MessagesJSON = %s, want %s", got, want)
	}
}

// TestServerReceivesJSONMarshalBody sends requests with hostile text and
// every sampling member through a client to the fake server and checks
// that each body it recorded is, byte for byte, encoding/json's encoding of
// the wire request: what the client sent before its body had a
// hand-written encoder.
func TestServerReceivesJSONMarshalBody(t *testing.T) {
	s := fakevllm.Start(t, fakevllm.Options{Record: true})
	c := newTestClient(t, func(ep *Endpoint, _ *Config) {
		ep.Sampling = Sampling{MaxTokens: 64, TopP: fp(0.95), RepetitionPenalty: fp(1.1), TruncatePromptTokens: ip(-1)}
	}, s.URL())
	var want [][]byte
	for i, text := range hostile {
		req := Request{Role: "speaker", Messages: []Message{{Role: "system", Content: hostile[(i+1)%len(hostile)]},
			{Role: "user", Content: text}, {Role: "assistant", Content: ""}}, Temperature: fp(float64(i) / 10), Seed: ip(i)}
		w := wireRequest{Model: "Qwen/Qwen3-8B", MaxTokens: 64, Seed: req.Seed, Temperature: req.Temperature, TopP: fp(0.95),
			RepetitionPenalty: fp(1.1), TruncatePromptTokens: ip(-1)}
		for _, m := range req.Messages {
			w.Messages = append(w.Messages, wireMessage(m))
		}
		if i%3 == 1 {
			req.Stop, w.Stop = []string{"</s>", text}, []string{"</s>", text}
		}
		if i%4 == 2 {
			req.TopK, w.TopK = ip(i), ip(i)
		}
		if i%5 < 2 { // written by hand, without the map
			req.EnableThinking, w.ChatTemplateKwargs = bp(i%5 == 1), map[string]any{"enable_thinking": i%5 == 1}
		}
		b, err := json.Marshal(w)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, b)
		if _, err := c.Chat(context.Background(), req); err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
	}
	var got [][]byte
	for _, r := range s.Requests() {
		if r.Path == "/v1/chat/completions" {
			got = append(got, r.Body)
		}
	}
	if len(got) != len(want) {
		t.Fatalf("the server recorded %d chat requests, want %d", len(got), len(want))
	}
	for i := range want {
		if !bytes.Equal(got[i], want[i]) {
			t.Errorf("request %d: the server received\n%s\nwant\n%s", i, got[i], want[i])
		}
	}
}
