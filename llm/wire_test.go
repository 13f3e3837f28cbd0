package llm

import (
	"encoding/json"
	"reflect"
	"testing"

	openai "github.com/sashabaranov/go-openai"
)

// TestWireBodyIsGoOpenAIsPlusSampling checks that the body encoded here
// holds exactly the members go-openai's encoding of the same request
// holds, with the same values, plus the sampling members go-openai cannot
// send.
func TestWireBodyIsGoOpenAIsPlusSampling(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{"score":{"type":"integer"}}}`)
	req := Request{Role: "judge", Messages: []Message{{Role: "system", Content: "Be <fair> & \"brief\"\n"},
		{Role: "assistant", Content: ""}, {Role: "user", Content: "Score ünïcode \u2028 text"}},
		Temperature: fp(0), TopK: ip(20), N: 3, Stop: []string{"</s>"}, Seed: ip(7), EnableThinking: bp(false),
		JSONSchema: schema, SchemaName: "score"}
	ep := Endpoint{Name: "e", Sampling: Sampling{MaxTokens: 64, TopP: fp(0.9), RepetitionPenalty: fp(1.05), TruncatePromptTokens: ip(100)}}
	creq, err := buildChatRequest(ep, req, "Qwen/Qwen3-8B")
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(creq.body, &got); err != nil {
		t.Fatalf("body %s: %v", creq.body, err)
	}
	o := creq.o // carries no messages nor template kwargs: go-openai's request with them
	o.ChatTemplateKwargs = map[string]any{"enable_thinking": *req.EnableThinking}
	for _, m := range req.Messages {
		o.Messages = append(o.Messages, openai.ChatCompletionMessage{Role: m.Role, Content: m.Content})
	}
	theirs, err := json.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	var want map[string]any
	if err := json.Unmarshal(theirs, &want); err != nil {
		t.Fatal(err)
	}
	// go-openai drops temperature 0 and has no top_k, repetition penalty
	// or vLLM's truncate_prompt_tokens; it sends top_p as float32.
	delete(want, "top_p")
	for k, v := range map[string]any{"temperature": 0.0, "top_p": 0.9, "top_k": 20.0, "repetition_penalty": 1.05,
		"truncate_prompt_tokens": 100.0} {
		if got[k] != v {
			t.Errorf("%s: %v, want %v", k, got[k], v)
		}
		delete(got, k)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("body members differ from go-openai's:\n got %v\nwant %v", got, want)
	}
}

// TestDecodeReplyIsGoOpenAIs decodes vLLM replies as go-openai does, and
// leaves to go-openai the ones it does not read (content in parts).
func TestDecodeReplyIsGoOpenAIs(t *testing.T) {
	for _, body := range []string{
		`{"id":"c","object":"chat.completion","created":1,"model":"m","choices":[
			{"index":1,"message":{"role":"assistant","content":"b","reasoning_content":"why","tool_calls":[]},
			 "logprobs":null,"finish_reason":"length","stop_reason":null},
			{"index":0,"message":{"role":"assistant","content":null},"finish_reason":"stop"}],
		 "usage":{"prompt_tokens":12,"total_tokens":20,"completion_tokens":8,"prompt_tokens_details":null},
		 "prompt_logprobs":null}`,
		`{"choices":[],"usage":{}}`,
	} {
		got, ok := decodeReply([]byte(body))
		if !ok {
			t.Fatalf("decodeReply(%s) did not decode", body)
		}
		var want openai.ChatCompletionResponse
		if err := json.Unmarshal([]byte(body), &want); err != nil {
			t.Fatal(err)
		}
		// what mascot reads of go-openai's decoding, field by field
		if w := fromOpenAI(want); !reflect.DeepEqual(*got, w) {
			t.Fatalf("decodeReply(%s):\n got %+v\nwant %+v", body, *got, w)
		}
	}
	for _, body := range []string{`{"choices":[{"message":{"content":[{"type":"text","text":"x"}]}}]}`, `{"choices":`} {
		if _, ok := decodeReply([]byte(body)); ok {
			t.Fatalf("decodeReply(%s) decoded what it cannot read", body)
		}
	}
}

// One replyDecoder reads reply after reply, and accepts and refuses what
// json.Unmarshal does: trailing space, not a second value or garbage, and
// a refused body does not spoil the next one.
func TestReplyDecoderIsUnmarshal(t *testing.T) {
	d := replyDecoders.New().(*replyDecoder)
	for i, body := range []string{
		`{"choices":[{"index":0,"message":{"content":"a"},"finish_reason":"stop"}],"usage":{"prompt_tokens":3}}`,
		"{\"choices\":[]}\n\t \r\n",
		`  {"choices":[{"index":2,"message":{"content":"b\u00e9","reasoning_content":"r"}}]}`,
		`{"choices":[]} {"choices":[]}`,
		`{"choices":[]}x`,
		`{"choices":[{"message":{"content":"x"}}]}`,
		`{"choices":`,
		``,
		`null`,
		`{"choices":[{"index":1,"message":{"content":"c"}}],"usage":{"completion_tokens":9}}`,
	} {
		var want wireResponse
		wantOK := json.Unmarshal([]byte(body), &want) == nil
		var got wireResponse
		gotOK := d.decode([]byte(body), &got)
		if gotOK != wantOK || (wantOK && !reflect.DeepEqual(got, want)) {
			t.Fatalf("body %d %q: decoded %v %+v, json.Unmarshal %v %+v", i, body, gotOK, got, wantOK, want)
		}
		if !gotOK {
			d = replyDecoders.New().(*replyDecoder) // as decodeReply drops it
		}
	}
}
