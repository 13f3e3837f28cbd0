package tokenizer

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Message is one chat turn as the Qwen3 chat template sees it.
type Message struct {
	// Role is "system", "user", "assistant" or "tool".
	Role    string `json:"role"`
	Content string `json:"content"`
	// ReasoningContent is the assistant's thinking. When nil, the template
	// takes it from a "<think>...</think>" prefix of Content instead.
	ReasoningContent *string `json:"reasoning_content,omitempty"`
	// ToolCalls are the assistant's function calls.
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
}

// ToolCall is one function call of an assistant turn.
type ToolCall struct {
	Name string `json:"name"`
	// Arguments is a JSON object (rendered as Python's json.dumps would) or a
	// JSON string (its value is inserted verbatim), as the template does.
	Arguments json.RawMessage `json:"arguments"`
}

// TemplateOptions are the template variables besides the messages.
type TemplateOptions struct {
	// AddGenerationPrompt appends "<|im_start|>assistant\n" to start the
	// next assistant turn.
	AddGenerationPrompt bool
	// EnableThinking false (the zero value) renders like enable_thinking=False:
	// the generation prompt gets an empty "<think>\n\n</think>\n\n" block.
	// true renders like enable_thinking=True or undefined: the model opens
	// its own <think> block.
	EnableThinking bool
	// Tools are function schemas, each a JSON object, listed in the system
	// turn.
	Tools []json.RawMessage
}

const (
	toolsIntro = "# Tools\n\nYou may call one or more functions to assist with the user query.\n\n" +
		"You are provided with function signatures within <tools></tools> XML tags:\n<tools>"
	toolsOutro = "\n</tools>\n\nFor each function call, return a json object with function name and " +
		"arguments within <tool_call></tool_call> XML tags:\n<tool_call>\n" +
		"{\"name\": <function-name>, \"arguments\": <args-json-object>}\n</tool_call><|im_end|>\n"
	emptyThink = "<think>\n\n</think>\n\n"
)

// ApplyChatTemplate renders msgs with the Qwen3 hybrid-thinking chat template
// exactly as Jinja renders the template shipped with Qwen3-0.6B/8B
// (apply_chat_template with tokenize=False). Past assistant turns before the
// last real user query lose their reasoning; later ones keep it in a
// <think> block. Unknown roles are an error (the template would drop them
// silently).
func ApplyChatTemplate(msgs []Message, opts TemplateOptions) (string, error) {
	var b strings.Builder
	firstSystem := len(msgs) > 0 && msgs[0].Role == "system"
	if len(opts.Tools) > 0 {
		b.WriteString("<|im_start|>system\n")
		if firstSystem {
			b.WriteString(msgs[0].Content + "\n\n")
		}
		b.WriteString(toolsIntro)
		for i, tool := range opts.Tools {
			js, err := pyJSON(tool)
			if err != nil {
				return "", fmt.Errorf("rendering tool %d: %w", i, err)
			}
			b.WriteString("\n" + js)
		}
		b.WriteString(toolsOutro)
	} else if firstSystem {
		b.WriteString("<|im_start|>system\n" + msgs[0].Content + "<|im_end|>\n")
	}
	lastQuery := lastQueryIndex(msgs)
	for i, m := range msgs {
		switch m.Role {
		case "system":
			if i > 0 {
				b.WriteString("<|im_start|>system\n" + m.Content + "<|im_end|>\n")
			}
		case "user":
			b.WriteString("<|im_start|>user\n" + m.Content + "<|im_end|>\n")
		case "assistant":
			if err := writeAssistant(&b, m, i > lastQuery, i == len(msgs)-1); err != nil {
				return "", fmt.Errorf("rendering message %d: %w", i, err)
			}
		case "tool":
			if i == 0 || msgs[i-1].Role != "tool" {
				b.WriteString("<|im_start|>user")
			}
			b.WriteString("\n<tool_response>\n" + m.Content + "\n</tool_response>")
			if i == len(msgs)-1 || msgs[i+1].Role != "tool" {
				b.WriteString("<|im_end|>\n")
			}
		default:
			return "", fmt.Errorf("rendering message %d: unknown role %q", i, m.Role)
		}
	}
	if opts.AddGenerationPrompt {
		b.WriteString("<|im_start|>assistant\n")
		if !opts.EnableThinking {
			b.WriteString(emptyThink)
		}
	}
	return b.String(), nil
}

// EncodeChat renders msgs with ApplyChatTemplate and encodes the result.
func (t *Tokenizer) EncodeChat(msgs []Message, opts TemplateOptions) ([]int, error) {
	s, err := ApplyChatTemplate(msgs, opts)
	if err != nil {
		return nil, err
	}
	return t.Encode(s), nil
}

// lastQueryIndex is the index of the last user message that is not a
// wrapped tool response, or len(msgs)-1 when there is none.
func lastQueryIndex(msgs []Message) int {
	for i := len(msgs) - 1; i >= 0; i-- {
		c := msgs[i].Content
		if msgs[i].Role == "user" && !(strings.HasPrefix(c, "<tool_response>") && strings.HasSuffix(c, "</tool_response>")) {
			return i
		}
	}
	return len(msgs) - 1
}

// splitReasoning returns the reasoning and the answer of an assistant turn.
func splitReasoning(m Message) (reasoning, content string) {
	content = m.Content
	if m.ReasoningContent != nil {
		return *m.ReasoningContent, content
	}
	if !strings.Contains(content, "</think>") {
		return "", content
	}
	head, _, _ := strings.Cut(content, "</think>")
	head = strings.TrimRight(head, "\n")
	if k := strings.LastIndex(head, "<think>"); k >= 0 {
		head = head[k+len("<think>"):]
	}
	reasoning = strings.TrimLeft(head, "\n")
	content = content[strings.LastIndex(content, "</think>")+len("</think>"):]
	return reasoning, strings.TrimLeft(content, "\n")
}

func writeAssistant(b *strings.Builder, m Message, afterQuery, last bool) error {
	reasoning, content := splitReasoning(m)
	b.WriteString("<|im_start|>assistant\n")
	if afterQuery && (last || reasoning != "") {
		b.WriteString("<think>\n" + strings.Trim(reasoning, "\n") + "\n</think>\n\n" + strings.TrimLeft(content, "\n"))
	} else {
		b.WriteString(content)
	}
	for j, tc := range m.ToolCalls {
		if j > 0 || content != "" {
			b.WriteString("\n")
		}
		b.WriteString("<tool_call>\n{\"name\": \"" + tc.Name + "\", \"arguments\": ")
		args, err := renderArguments(tc.Arguments)
		if err != nil {
			return fmt.Errorf("rendering tool call %q: %w", tc.Name, err)
		}
		b.WriteString(args + "}\n</tool_call>")
	}
	b.WriteString("<|im_end|>\n")
	return nil
}

// renderArguments inserts a JSON string's value verbatim and renders any
// other JSON value with tojson.
func renderArguments(raw json.RawMessage) (string, error) {
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, nil
	}
	return pyJSON(raw)
}
