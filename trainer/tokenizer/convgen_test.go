package tokenizer

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
)

// randomConversation builds a seeded conversation exercising every branch of
// the Qwen3 template: optional system prompt and tools, reasoning in content
// or in reasoning_content, tool calls with object or string arguments,
// consecutive tool results, user messages that wrap tool responses, and a
// last message from the user or the assistant.
func randomConversation(r *rand.Rand) ([]Message, []json.RawMessage) {
	text := func() string { return randomString(r) }
	var msgs []Message
	if r.IntN(2) == 0 {
		msgs = append(msgs, Message{Role: "system", Content: "You are a helpful companion. " + text()})
	}
	var tools []json.RawMessage
	if r.IntN(3) == 0 {
		for k := range 1 + r.IntN(2) {
			tools = append(tools, json.RawMessage(fmt.Sprintf(
				`{"type": "function", "function": {"name": "tool_%d", "description": %s, "parameters": {"type": "object", "properties": {"q": {"type": "string", "enum": ["a", "ü\n\"x\""]}, "n": {"type": "integer", "minimum": -3, "scale": 1.5}}, "required": ["q"]}}}`,
				k, jsonString(text()))))
		}
	}
	for turn := range 1 + r.IntN(4) {
		msgs = append(msgs, Message{Role: "user", Content: text()})
		if r.IntN(6) == 0 && turn > 0 {
			msgs = append(msgs, Message{Role: "system", Content: "Later system note: " + text()})
		}
		a := Message{Role: "assistant"}
		switch r.IntN(6) {
		case 0:
			a.Content = text()
		case 1:
			a.Content = "<think>\n" + text() + "\n</think>\n\n" + text()
		case 2:
			a.Content = "\n\n<think>" + text() + "</think>" + text() + "</think>\n" + text()
		case 3:
			rc := text()
			a.Content, a.ReasoningContent = "\n"+text(), &rc
		case 4:
			empty := ""
			a.Content, a.ReasoningContent = "<think>ignored</think>"+text(), &empty
		case 5:
			a.Content = ""
		}
		if r.IntN(3) == 0 {
			n := 1 + r.IntN(2)
			for k := range n {
				args := json.RawMessage(fmt.Sprintf(`{"q": %s, "n": %d, "flags": [true, false, null]}`, jsonString(text()), k))
				if r.IntN(3) == 0 {
					args = json.RawMessage(jsonString(`{"raw": "string args"}`))
				}
				a.ToolCalls = append(a.ToolCalls, ToolCall{Name: fmt.Sprintf("tool_%d", k), Arguments: args})
			}
			msgs = append(msgs, a)
			for range n {
				msgs = append(msgs, Message{Role: "tool", Content: text()})
			}
			if r.IntN(2) == 0 {
				msgs = append(msgs, Message{Role: "user", Content: "<tool_response>\n" + text() + "\n</tool_response>"})
			}
			if r.IntN(2) == 0 {
				msgs = append(msgs, Message{Role: "assistant", Content: "<think>\nafter tools " + text() + "\n</think>\n\n" + text()})
			}
			continue
		}
		msgs = append(msgs, a)
	}
	if r.IntN(2) == 0 { // end on a user turn
		msgs = append(msgs, Message{Role: "user", Content: text()})
	}
	return msgs, tools
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// jsMessages converts messages to the shape transformers passes to Jinja.
func jsMessages(msgs []Message) []map[string]any {
	out := make([]map[string]any, len(msgs))
	for i, m := range msgs {
		o := map[string]any{"role": m.Role, "content": m.Content}
		if m.ReasoningContent != nil {
			o["reasoning_content"] = *m.ReasoningContent
		}
		if len(m.ToolCalls) > 0 {
			var calls []map[string]any
			for _, tc := range m.ToolCalls {
				calls = append(calls, map[string]any{"type": "function", "function": map[string]any{
					"name": tc.Name, "arguments": orderedJSON(tc.Arguments),
				}})
			}
			o["tool_calls"] = calls
		}
		out[i] = o
	}
	return out
}

// orderedJSON keeps the raw JSON (and so its key order) when re-marshalled.
func orderedJSON(raw json.RawMessage) json.RawMessage { return raw }
