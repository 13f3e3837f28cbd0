package llm

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// vllmReply is a reply as vLLM writes it.
var vllmReply = `{"id":"chatcmpl-abc123","object":"chat.completion","created":1733500000,"model":"Qwen/Qwen3-8B",` +
	`"choices":[{"index":0,"message":{"role":"assistant","content":"` + strings.Repeat("I hear how heavy this week has been. ", 12) +
	`","reasoning_content":null,"tool_calls":[]},"logprobs":null,"finish_reason":"stop","stop_reason":null}],` +
	`"usage":{"prompt_tokens":612,"total_tokens":676,"completion_tokens":64,"prompt_tokens_details":null},"prompt_logprobs":null}`

// scanBodies are replies and near-replies: scanReply must decide the
// first group itself and, on every body it decides, agree with
// json.Unmarshal.
var (
	scanDecides = []string{
		vllmReply,
		`{"choices":[],"usage":{}}`,
		`null`,
		` {"choices":null,"usage":null} `,
		`{"choices":[null,{"index":-0,"message":null,"finish_reason":null}]}`,
		`{"choices":[{"index":1,"message":{"content":"a\"b\\c\/d\n\te\r\b\f","reasoning_content":"é ✓"}}]}`,
		`{"choices":[{"message":{"content":"\u003cthink\u003e \u00e9\u0000\uFFFD"}}]}`,
		`{"choices":[{"index":2,"message":{"content":"x"}}],"extra":{"a":[1,2.5e-3,-0.0,true,false,null,"\u00e9",{"b":{}}]}}`,
		"{\n\t\"usage\" : { \"prompt_tokens\" : 3 , \"completion_tokens\" : 4 }\r\n}\n",
		`{"choices":[{"message":{"content":"k"},"KIND":"x"}],"prompt_tokens":5}`,
	}
	scanLeaves = []string{
		`{"Choices":[{"message":{"content":"upper"}}]}`,                 // json.Unmarshal matches it
		`{"choices":[{"message":{"Content":"upper"}}]}`,                 // the same one level down
		`{"choiceſ":[{"message":{"content":"long s"}}]}`,                // folds to "choices"
		`{"cho\u0069ces":[{"message":{"content":"escaped name"}}]}`,     // unescaped, "choices"
		`{"choices":[],"choices":[{"message":{"content":"twice"}}]}`,    // the last one wins there
		`{"choices":[{"message":{"content":"\u00e9\ud83d\ude00"}}]}`,    // a surrogate pair
		"{\"choices\":[{\"message\":{\"content\":\"bad \xff byte\"}}]}", // replaced there
		`{"choices":[{"index":1.0}]}`,
		`{"choices":[{"index":"1"}]}`,
		`{"choices":[{"message":{"content":5}}]}`,
		`{"choices":[{"message":{"content":[{"type":"text","text":"x"}]}}]}`,
		`{"choices":{}}`,
		`{"usage":{"prompt_tokens":99999999999999999999}}`,
		`{"choices":[]} {"choices":[]}`,
		`{"choices":[]}x`,
		`{"choices":`,
		``,
		`{"a":01}`,
		`{"a":NaN}`,
		`{"a":"tab	inside"}`,
		`{"a":"\x"}`,
		`{"a":tru}`,
		`[` + strings.Repeat(`[`, 70) + strings.Repeat(`]`, 70) + `]`,
		`{"a":` + strings.Repeat(`[`, 70) + strings.Repeat(`]`, 70) + `}`,
	}
)

func TestScanReplyDecidesRepliesAsUnmarshal(t *testing.T) {
	for _, body := range scanDecides {
		got, ok := scanReply([]byte(body))
		if !ok {
			t.Errorf("scanReply left %q to encoding/json", body)
			continue
		}
		var want wireResponse
		if err := json.Unmarshal([]byte(body), &want); err != nil {
			t.Fatalf("scanReply decoded %q, which json.Unmarshal refuses: %v", body, err)
		}
		if !reflect.DeepEqual(*got, want) {
			t.Errorf("scanReply(%q):\n got %+v\nwant %+v", body, *got, want)
		}
	}
	for _, body := range scanLeaves {
		if got, ok := scanReply([]byte(body)); ok {
			t.Errorf("scanReply decided %q (%+v): it is json.Unmarshal's to decide", body, *got)
		}
		// decodeReply then says what json.Unmarshal says.
		var want wireResponse
		wantErr := json.Unmarshal([]byte(body), &want)
		got, ok := decodeReply([]byte(body))
		if ok != (wantErr == nil) || (ok && !reflect.DeepEqual(*got, want)) {
			t.Errorf("decodeReply(%q) = %v, %+v; json.Unmarshal: %v, %+v", body, ok, got, wantErr, want)
		}
	}
}

// FuzzScanReplyIsUnmarshal: whatever scanReply decides, json.Unmarshal
// decides the same way.
//
//	go test ./llm -run '^$' -fuzz FuzzScanReplyIsUnmarshal -fuzztime 60s
func FuzzScanReplyIsUnmarshal(f *testing.F) {
	for _, b := range append(append([]string{}, scanDecides...), scanLeaves...) {
		f.Add([]byte(b))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		got, ok := scanReply(body)
		if !ok {
			return
		}
		var want wireResponse
		if err := json.Unmarshal(body, &want); err != nil {
			t.Fatalf("scanReply decoded %q, which json.Unmarshal refuses: %v", body, err)
		}
		if !reflect.DeepEqual(*got, want) {
			t.Fatalf("scanReply(%q):\n got %+v\nwant %+v", body, *got, want)
		}
	})
}

func BenchmarkDecodeReply(b *testing.B) {
	body := []byte(vllmReply)
	b.Run("scan", func(b *testing.B) {
		for b.Loop() {
			if _, ok := scanReply(body); !ok {
				b.Fatal("not decided")
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		for b.Loop() {
			d := replyDecoders.Get().(*replyDecoder)
			var w wireResponse
			if !d.decode(body, &w) {
				b.Fatal("not decoded")
			}
			replyDecoders.Put(d)
		}
	})
}
