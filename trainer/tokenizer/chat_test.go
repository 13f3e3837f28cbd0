package tokenizer

import (
	"encoding/json"
	"slices"
	"testing"
)

func TestApplyChatTemplate(t *testing.T) {
	reason := "weigh it"
	cases := []struct {
		name string
		msgs []Message
		opts TemplateOptions
		want string
	}{
		{"non-thinking prompt",
			[]Message{{Role: "system", Content: "Be kind."}, {Role: "user", Content: "hi"}},
			TemplateOptions{AddGenerationPrompt: true},
			"<|im_start|>system\nBe kind.<|im_end|>\n<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n"},
		{"thinking prompt",
			[]Message{{Role: "user", Content: "hi"}},
			TemplateOptions{AddGenerationPrompt: true, EnableThinking: true},
			"<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n"},
		{"final assistant turn gets an empty think block",
			[]Message{{Role: "user", Content: "hi"}, {Role: "assistant", Content: "hello"}},
			TemplateOptions{},
			"<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\nhello<|im_end|>\n"},
		{"history loses its reasoning, the last turn keeps it",
			[]Message{
				{Role: "user", Content: "q1"}, {Role: "assistant", Content: "<think>\nold\n</think>\n\na1"},
				{Role: "user", Content: "q2"}, {Role: "assistant", Content: "a2", ReasoningContent: &reason},
			},
			TemplateOptions{},
			"<|im_start|>user\nq1<|im_end|>\n<|im_start|>assistant\na1<|im_end|>\n" +
				"<|im_start|>user\nq2<|im_end|>\n<|im_start|>assistant\n<think>\nweigh it\n</think>\n\na2<|im_end|>\n"},
		{"tool calls and merged tool results",
			[]Message{
				{Role: "user", Content: "weather?"},
				{Role: "assistant", Content: "", ToolCalls: []ToolCall{
					{Name: "get", Arguments: json.RawMessage(`{"city":"Zürich","days":[1,2]}`)},
					{Name: "raw", Arguments: json.RawMessage(`"{\"x\": 1}"`)},
				}},
				{Role: "tool", Content: "sunny"}, {Role: "tool", Content: "warm"},
			},
			TemplateOptions{AddGenerationPrompt: true, EnableThinking: true},
			"<|im_start|>user\nweather?<|im_end|>\n<|im_start|>assistant\n" +
				"<tool_call>\n{\"name\": \"get\", \"arguments\": {\"city\": \"Zürich\", \"days\": [1, 2]}}\n</tool_call>\n" +
				"<tool_call>\n{\"name\": \"raw\", \"arguments\": {\"x\": 1}}\n</tool_call><|im_end|>\n" +
				"<|im_start|>user\n<tool_response>\nsunny\n</tool_response>\n<tool_response>\nwarm\n</tool_response><|im_end|>\n" +
				"<|im_start|>assistant\n"},
	}
	for _, c := range cases {
		got, err := ApplyChatTemplate(c.msgs, c.opts)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got != c.want {
			t.Errorf("%s:\n%s", c.name, diffAt(got, c.want))
		}
	}
}

func TestApplyChatTemplateTools(t *testing.T) {
	tool := json.RawMessage(`{"type":"function","function":{"name":"f","description":"say \"hi\"\n","parameters":{}}}`)
	got, err := ApplyChatTemplate([]Message{{Role: "system", Content: "S"}, {Role: "user", Content: "u"}},
		TemplateOptions{Tools: []json.RawMessage{tool}})
	if err != nil {
		t.Fatal(err)
	}
	want := "<|im_start|>system\nS\n\n" + toolsIntro +
		"\n{\"type\": \"function\", \"function\": {\"name\": \"f\", \"description\": \"say \\\"hi\\\"\\n\", \"parameters\": {}}}" +
		toolsOutro + "<|im_start|>user\nu<|im_end|>\n"
	if got != want {
		t.Error(diffAt(got, want))
	}
	if _, err := ApplyChatTemplate(nil, TemplateOptions{Tools: []json.RawMessage{json.RawMessage(`{"a":`)}}); err == nil {
		t.Error("broken tool JSON accepted")
	}
}

func TestApplyChatTemplateRejectsUnknownRole(t *testing.T) {
	if _, err := ApplyChatTemplate([]Message{{Role: "narrator", Content: "x"}}, TemplateOptions{}); err == nil {
		t.Error("unknown role accepted")
	}
}

// TestEncodeChatByteLevel: the demo tokenizer keeps the template's special
// tokens whole and everything else as bytes.
func TestEncodeChatByteLevel(t *testing.T) {
	tok := NewByteLevel()
	ids, err := tok.EncodeChat([]Message{{Role: "user", Content: "hé"}}, TemplateOptions{AddGenerationPrompt: true})
	if err != nil {
		t.Fatal(err)
	}
	sp := tok.Specials()
	want := []int{sp.IMStart, 'u', 's', 'e', 'r', '\n', 'h', 0xC3, 0xA9, sp.IMEnd, '\n', sp.IMStart,
		'a', 's', 's', 'i', 's', 't', 'a', 'n', 't', '\n', sp.Think, '\n', '\n', sp.EndThink, '\n', '\n'}
	if !slices.Equal(ids, want) {
		t.Errorf("got  %v\nwant %v", ids, want)
	}
}
