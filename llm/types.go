package llm

import (
	"encoding/json"
	"time"
)

// Message is one chat message.
type Message struct {
	Role    string `json:"role"` // system | user | assistant
	Content string `json:"content"`
}

// Request is one chat-completion request made on behalf of a role
// (director, speaker, user, judge, ...). Pointer fields are "unset" when nil
// so that an explicit zero (temperature 0) is really sent.
type Request struct {
	Role string `json:"role"`
	// Endpoint, when set, names the endpoint to call; Role then only
	// labels the request (counters, traces).
	Endpoint string    `json:"-"`
	Model    string    `json:"model,omitempty"` // override: an adapter alias; empty = endpoint model
	Messages []Message `json:"messages"`

	Temperature       *float64 `json:"temperature,omitempty"`
	TopP              *float64 `json:"top_p,omitempty"`
	TopK              *int     `json:"top_k,omitempty"`
	MaxTokens         int      `json:"max_tokens,omitempty"`
	Seed              *int     `json:"seed,omitempty"`
	N                 int      `json:"n,omitempty"` // 0 or 1 = one choice
	Stop              []string `json:"stop,omitempty"`
	RepetitionPenalty *float64 `json:"repetition_penalty,omitempty"`
	// TruncatePromptTokens is vLLM's truncate_prompt_tokens: the server
	// keeps the prompt's last k tokens (-1: the model's context length).
	TruncatePromptTokens *int  `json:"truncate_prompt_tokens,omitempty"`
	EnableThinking       *bool `json:"enable_thinking,omitempty"`

	// JSONSchema, when set, asks for structured output through
	// response_format {type: json_schema}.
	JSONSchema json.RawMessage `json:"json_schema,omitempty"`
	SchemaName string          `json:"schema_name,omitempty"`

	// CacheKey is the unit fingerprint (sample index included). A non-empty
	// key makes the response cacheable and replayable.
	CacheKey string `json:"-"`
}

// Response is the outcome of one Request.
type Response struct {
	Choices          []string      `json:"choices"` // <think> blocks stripped
	Raw              []string      `json:"raw,omitempty"`
	FinishReasons    []string      `json:"finish_reasons,omitempty"`
	PromptTokens     int           `json:"prompt_tokens"`
	CompletionTokens int           `json:"completion_tokens"`
	Latency          time.Duration `json:"latency"`
	Attempts         int           `json:"attempts"`
	Cached           bool          `json:"cached"`
	ModelID          string        `json:"model_id"`
	URL              string        `json:"url"`
	// Counted says, for a reply read from the Cache, that the work it was
	// fetched for was committed and counted its usage; a reply that is not
	// counted was fetched by work lost to an interruption, and the request
	// that reuses it counts its usage (once).
	Counted bool `json:"-"`
	// RequestIDs are the journal ids of the attempts that fetched a fresh
	// reply, which Cache.Put settles together with storing it.
	RequestIDs []string `json:"-"`
}

// Text returns the first choice, or "" when there is none.
func (r Response) Text() string {
	if len(r.Choices) == 0 {
		return ""
	}
	return r.Choices[0]
}
