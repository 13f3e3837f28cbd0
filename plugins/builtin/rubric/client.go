package rubric

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"mascot.dev/mascot/llm"
	"mascot.dev/mascot/plugins/sdk"
)

// chatClient calls one judge endpoint through llm, the client every
// other role uses: the endpoint's replicas, concurrency, retries (with
// Retry-After), timeouts and key redaction apply, and each request is
// counted in the Tally of the Score call it serves.
type chatClient struct {
	judge Endpoint
	llm   *llm.Client
}

// role is the LLM role of a judge's requests: "judge:<name>".
func (e Endpoint) role() string { return "judge:" + e.Name }

// llmEndpoint is the llm client's endpoint for a judge, built from the
// options (Validate has filled the defaults): replicas, key variable,
// concurrency, retries, timeouts and sampling.
func (e Endpoint) llmEndpoint() llm.Endpoint {
	le := llm.Endpoint{Name: e.Name, URLs: e.URLs, Model: e.Model, APIKeyEnv: e.APIKeyEnv,
		Concurrency: e.Concurrency, Timeout: seconds(e.TimeoutS), TotalTimeout: seconds(e.TotalTimeoutS),
		Retries: *e.MaxRetries, EnableThinking: e.EnableThinking}
	if le.Retries == 0 {
		le.Retries = -1 // llm: -1 is none, 0 the default
	}
	if len(le.URLs) == 0 {
		le.URLs = []string{e.URL}
	}
	le.Sampling = llm.Sampling{TopP: e.TopP, TopK: e.TopK, RepetitionPenalty: e.RepetitionPenalty}
	return le
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// newClients builds one llm client over every judge endpoint.
func newClients(judges []Endpoint) ([]*chatClient, error) {
	cfg := llm.Config{Roles: map[string]string{}}
	for _, e := range judges {
		cfg.Endpoints = append(cfg.Endpoints, e.llmEndpoint())
		cfg.Roles[e.role()] = e.Name
	}
	c, err := llm.New(cfg)
	if err != nil {
		return nil, fmt.Errorf("configuring judge endpoints: %w", err)
	}
	out := make([]*chatClient, len(judges))
	for i, e := range judges {
		out[i] = &chatClient{judge: e, llm: c}
	}
	return out, nil
}

// complete sends messages and returns the first choice's content.
func (c *chatClient) complete(ctx context.Context, msgs []message, schemaName string, schema json.RawMessage, seed int64) (string, error) {
	temp := c.judge.Temperature
	s := int(seed)
	req := llm.Request{Role: c.judge.role(), Temperature: &temp, MaxTokens: c.judge.MaxTokens, Seed: &s,
		EnableThinking: c.judge.EnableThinking}
	for _, m := range msgs {
		req.Messages = append(req.Messages, llm.Message{Role: m.Role, Content: m.Content})
	}
	if schema != nil && !c.judge.NoResponseFormat {
		req.JSONSchema, req.SchemaName = schema, schemaName
	}
	resp, err := c.llm.Chat(ctx, req)
	if err != nil {
		return "", fmt.Errorf("calling judge %s: %w", c.judge.Name, err)
	}
	return resp.Text(), nil
}

// withTally returns ctx counting the LLM requests of one Score call.
func withTally(ctx context.Context) (context.Context, *llm.Tally) {
	t := llm.NewTally()
	return llm.WithTally(ctx, t), t
}

// tallyStatistics reports a Score call's LLM requests to the host.
func tallyStatistics(t *llm.Tally) []sdk.Statistic {
	var out []sdk.Statistic
	for name, v := range llm.EncodeTally(t.Roles()) {
		out = append(out, sdk.Statistic{Name: llm.TallyStatPrefix + name, Value: float64(v), N: 1})
	}
	return out
}

func snippet(b []byte) string {
	const n = 300
	if len(b) > n {
		return string(b[:n]) + "…"
	}
	return string(b)
}
