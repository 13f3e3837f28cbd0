package serve

import (
	"encoding/json"
	"fmt"
)

// stopField is OpenAI's stop: a string or a list of strings.
type stopField []string

func (s *stopField) UnmarshalJSON(b []byte) error {
	var one string
	if json.Unmarshal(b, &one) == nil {
		*s = stopField{one}
		return nil
	}
	var many []string
	if err := json.Unmarshal(b, &many); err != nil {
		return fmt.Errorf("stop must be a string or a list of strings")
	}
	*s = many
	return nil
}

// samplingFields are the request fields shared by chat and completions.
type samplingFields struct {
	Model                  string          `json:"model"`
	N                      *int            `json:"n"`
	Temperature            *float64        `json:"temperature"`
	TopP                   *float64        `json:"top_p"`
	TopK                   *int            `json:"top_k"`
	MaxTokens              *int            `json:"max_tokens"`
	Seed                   *int64          `json:"seed"`
	Stop                   stopField       `json:"stop"`
	StopTokenIDs           []int           `json:"stop_token_ids"`
	IncludeStopStrInOutput bool            `json:"include_stop_str_in_output"`
	Stream                 bool            `json:"stream"`
	StreamOptions          *streamOptions  `json:"stream_options"`
	ResponseFormat         *responseFormat `json:"response_format"`
	// TruncatePromptTokens is vLLM's: keep the prompt's last k tokens
	// (-1: the context length).
	TruncatePromptTokens *int `json:"truncate_prompt_tokens"`
}

type streamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

type responseFormat struct {
	Type       string `json:"type"`
	JSONSchema *struct {
		Name   string          `json:"name"`
		Schema json.RawMessage `json:"schema"`
		Strict *bool           `json:"strict"`
	} `json:"json_schema"`
}

type usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

// chatRequest is POST /v1/chat/completions.
type chatRequest struct {
	samplingFields
	Messages            []chatMessage     `json:"messages"`
	MaxCompletionTokens *int              `json:"max_completion_tokens"`
	Logprobs            bool              `json:"logprobs"`
	TopLogprobs         *int              `json:"top_logprobs"`
	ChatTemplateKwargs  map[string]any    `json:"chat_template_kwargs"`
	Tools               []json.RawMessage `json:"tools"`
}

type chatMessage struct {
	Role             string          `json:"role"`
	Content          json.RawMessage `json:"content"`
	ReasoningContent *string         `json:"reasoning_content"`
	ToolCalls        []struct {
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls"`
}

// completionRequest is POST /v1/completions.
type completionRequest struct {
	samplingFields
	Prompt                 json.RawMessage `json:"prompt"`
	Logprobs               *int            `json:"logprobs"`
	Echo                   bool            `json:"echo"`
	ReturnTokensAsTokenIDs bool            `json:"return_tokens_as_token_ids"`
	ReturnTokenIDs         bool            `json:"return_token_ids"`
}
