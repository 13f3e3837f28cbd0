package rubric

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"
)

// chatClient calls one OpenAI-compatible /chat/completions endpoint with
// plain net/http, so that temperature 0 is really sent (go-openai drops a
// zero temperature because of omitempty).
type chatClient struct {
	judge Endpoint
	http  *http.Client
}

type chatRequest struct {
	Model              string          `json:"model"`
	Messages           []message       `json:"messages"`
	Temperature        float64         `json:"temperature"` // no omitempty: 0 is sent
	MaxTokens          int             `json:"max_tokens,omitempty"`
	Seed               *int64          `json:"seed,omitempty"`
	ResponseFormat     *responseFormat `json:"response_format,omitempty"`
	ChatTemplateKwargs map[string]any  `json:"chat_template_kwargs,omitempty"`
}

type responseFormat struct {
	Type       string     `json:"type"`
	JSONSchema jsonSchema `json:"json_schema"`
}

type jsonSchema struct {
	Name   string          `json:"name"`
	Schema json.RawMessage `json:"schema"`
	Strict bool            `json:"strict"`
}

type chatResponse struct {
	Choices []struct {
		Message struct {
			Content string `json:"content"`
		} `json:"message"`
	} `json:"choices"`
}

// complete sends messages and returns the first choice's content. It
// retries 408, 429, 5xx and transport errors with backoff.
func (c *chatClient) complete(ctx context.Context, msgs []message, schemaName string, schema json.RawMessage, seed int64) (string, error) {
	req := chatRequest{Model: c.judge.Model, Messages: msgs, Temperature: c.judge.Temperature,
		MaxTokens: c.judge.MaxTokens, Seed: &seed}
	if schema != nil && !c.judge.NoResponseFormat {
		req.ResponseFormat = &responseFormat{Type: "json_schema", JSONSchema: jsonSchema{Name: schemaName, Schema: schema, Strict: true}}
	}
	if c.judge.EnableThinking != nil {
		req.ChatTemplateKwargs = map[string]any{"enable_thinking": *c.judge.EnableThinking}
	}
	body, err := json.Marshal(req)
	if err != nil {
		return "", fmt.Errorf("encoding judge request: %w", err)
	}
	backoff := 200 * time.Millisecond
	var lastErr error
	for attempt := 0; attempt <= *c.judge.MaxRetries; attempt++ {
		if attempt > 0 {
			select {
			case <-ctx.Done():
				return "", ctx.Err()
			case <-time.After(backoff):
			}
			backoff *= 2
		}
		out, retry, err := c.post(ctx, body)
		if err == nil {
			return out, nil
		}
		lastErr = err
		if !retry {
			break
		}
	}
	return "", lastErr
}

func (c *chatClient) post(ctx context.Context, body []byte) (string, bool, error) {
	url := strings.TrimSuffix(c.judge.URL, "/") + "/chat/completions"
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return "", false, fmt.Errorf("building request to judge %s: %w", c.judge.Name, err)
	}
	hreq.Header.Set("Content-Type", "application/json")
	if c.judge.APIKeyEnv != "" {
		if key := os.Getenv(c.judge.APIKeyEnv); key != "" {
			hreq.Header.Set("Authorization", "Bearer "+key)
		}
	}
	resp, err := c.http.Do(hreq)
	if err != nil {
		return "", ctx.Err() == nil, fmt.Errorf("calling judge %s at %s: %w", c.judge.Name, url, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return "", true, fmt.Errorf("reading judge %s response: %w", c.judge.Name, err)
	}
	if resp.StatusCode != http.StatusOK {
		retry := resp.StatusCode == 408 || resp.StatusCode == 429 || resp.StatusCode >= 500
		return "", retry, fmt.Errorf("judge %s at %s: HTTP %d: %s", c.judge.Name, url, resp.StatusCode, snippet(data))
	}
	var cr chatResponse
	if err := json.Unmarshal(data, &cr); err != nil {
		return "", true, fmt.Errorf("decoding judge %s response: %v: %s", c.judge.Name, err, snippet(data))
	}
	if len(cr.Choices) == 0 {
		return "", true, fmt.Errorf("judge %s returned no choices", c.judge.Name)
	}
	return cr.Choices[0].Message.Content, false, nil
}

func snippet(b []byte) string {
	const n = 300
	if len(b) > n {
		return string(b[:n]) + "…"
	}
	return string(b)
}
