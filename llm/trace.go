package llm

import "time"

// TraceEvent describes one Chat request, for --trace-role-calls. It holds no
// prompt text and no API key.
type TraceEvent struct {
	Time       time.Time     `json:"time"` // when the request started
	Role       string        `json:"role"`
	Endpoint   string        `json:"endpoint"`
	URL        string        `json:"url,omitempty"` // replica of the last attempt, redacted
	Model      string        `json:"model"`         // model id really asked for: base or adapter alias
	Latency    time.Duration `json:"latency"`
	Status     string        `json:"status"` // "ok", "cached" or a failure Kind
	HTTPStatus int           `json:"http_status,omitempty"`
	Attempts   int           `json:"attempts"`
	Choices    int           `json:"choices"`

	PromptTokens     int    `json:"prompt_tokens"`
	CompletionTokens int    `json:"completion_tokens"`
	CacheKey         string `json:"cache_key,omitempty"`
	Error            string `json:"error,omitempty"`
}
