package train

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"mascot.dev/mascot/llm"
	"mascot.dev/mascot/runner/dialogue"
	"mascot.dev/mascot/trainer/sample"
	"mascot.dev/mascot/trainer/tokenizer"
	"mascot.dev/mascot/trainer/train"
)

// policyChat is the Chatter of the Director's rollouts: Director requests
// are answered by the policy being trained, every other role goes to the
// episodes stage's endpoints (next). With rollouts "trainer" the policy is
// sampled in this process (trainer/sample on the base with the current
// adapter, seeded with the request's seed); with rollouts "endpoint" the
// request goes to an endpoint that has the current adapter hot-loaded
// under alias. Either way it keeps, per drawn choice, the prompt and
// completion tokens the GRPO loss trains on.
type policyChat struct {
	next dialogue.Chatter
	tok  tok
	// think is the Director endpoint's enable_thinking, for requests
	// that do not set it (the chat template differs).
	think bool
	// GRPO's sampling settings replace the episodes stage's for the
	// Director: plain sampling at the temperature the loss divides the
	// logits by (no top-p or top-k truncation), up to maxTokens.
	temperature float64
	maxTokens   int

	// trainer mode: the current policy, constrained by grammar to the
	// request's JSON schema as the built-in engine constrains it.
	policy  *train.Policy
	grammar *grammar
	// endpoint mode: the client, endpoint and the adapter's alias there.
	client   *llm.Client
	endpoint string
	alias    string

	mu    sync.Mutex
	drawn map[dialogue.Draw]drawnTokens
}

// drawnTokens are one Director choice as the trainer sees it.
type drawnTokens struct {
	prompt, completion []int // completion ends with EOS when the policy stopped
	// forced marks the completion tokens the directive's JSON schema
	// forced (grammar.forced); nil when no schema constrained the draw.
	forced []bool
}

func (c *policyChat) Chat(ctx context.Context, req llm.Request) (llm.Response, error) {
	if req.Role != dialogue.RoleDirector {
		return c.next.Chat(ctx, req)
	}
	prompt, err := c.encode(req.Messages, req.EnableThinking)
	if err != nil {
		return llm.Response{}, err
	}
	// The Director sees what its endpoint would show it: a request that
	// asks for truncate_prompt_tokens (the episodes stage's
	// director_sampling) keeps the prompt's last tokens, and the loss
	// trains on those.
	if k := req.TruncatePromptTokens; k != nil && *k > 0 && len(prompt) > *k {
		prompt = prompt[len(prompt)-*k:]
	}
	if c.policy != nil {
		return c.sample(ctx, req, prompt)
	}
	return c.remote(ctx, req, prompt)
}

// encode renders a Director prompt with the chat template as the
// Director's endpoint does (enable_thinking from the request, else the
// endpoint's) and encodes it.
func (c *policyChat) encode(ms []llm.Message, enableThinking *bool) ([]int, error) {
	msgs := make([]tokenizer.Message, len(ms))
	for i, m := range ms {
		msgs[i] = tokenizer.Message{Role: m.Role, Content: m.Content}
	}
	think := c.think
	if enableThinking != nil {
		think = *enableThinking
	}
	text, err := tokenizer.ApplyChatTemplate(msgs, tokenizer.TemplateOptions{AddGenerationPrompt: true, EnableThinking: think})
	if err != nil {
		return nil, fmt.Errorf("rendering the Director prompt: %w", err)
	}
	return c.tok.Encode(text), nil
}

// sample answers a Director request from the policy in this process,
// constrained to the request's JSON schema. The draw counts as a Director
// request (no HTTP attempt) in the unit's tally, with its tokens.
func (c *policyChat) sample(ctx context.Context, req llm.Request, prompt []int) (llm.Response, error) {
	p := c.policy.Params
	p.Temperature, p.TopP, p.TopK, p.MaxTokens = float32(c.temperature), 0, 0, c.maxTokens
	if req.Seed != nil {
		p.Seed = uint64(*req.Seed)
	}
	if len(req.JSONSchema) > 0 && c.grammar != nil {
		proc, err := c.grammar.processor(req.JSONSchema, c.maxTokens)
		if err != nil {
			return llm.Response{}, err
		}
		p.Processor = proc
	}
	n := max(1, req.N)
	rs, err := sample.GenerateN(ctx, c.policy.Model, prompt, n, p)
	if err != nil {
		return llm.Response{}, fmt.Errorf("sampling the Director policy: %w", err)
	}
	resp := llm.Response{PromptTokens: len(prompt)}
	for i, r := range rs {
		out, reason := r.Tokens, "length"
		if len(out) > 0 && out[len(out)-1] == c.tok.EOS() {
			out, reason = out[:len(out)-1], "stop"
		}
		resp.Choices = append(resp.Choices, c.tok.Decode(out))
		resp.FinishReasons = append(resp.FinishReasons, reason)
		resp.CompletionTokens += len(r.Tokens)
		if err := c.keep(dialogue.Draw{Key: req.CacheKey, Choice: i}, prompt, r.Tokens, req.JSONSchema); err != nil {
			return llm.Response{}, err
		}
	}
	llm.TallyFrom(ctx).Merge(map[string]llm.RoleTally{dialogue.RoleDirector: {Requests: 1,
		TokensIn: int64(resp.PromptTokens), TokensOut: int64(resp.CompletionTokens)}})
	return resp, nil
}

// remote sends a Director request to the rollout endpoint, which serves
// the current adapter as alias; the trainer reads each choice back as
// its tokens (an EOS appended when the server stopped on it).
func (c *policyChat) remote(ctx context.Context, req llm.Request, prompt []int) (llm.Response, error) {
	req.Endpoint, req.Model, req.MaxTokens = c.endpoint, c.alias, c.maxTokens
	t, tp, tk := c.temperature, 1.0, -1 // top_p 1 and top_k −1: no truncation (vLLM's values)
	req.Temperature, req.TopP, req.TopK = &t, &tp, &tk
	resp, err := c.client.Chat(ctx, req)
	if err != nil {
		return resp, err
	}
	for i, ch := range resp.Choices {
		toks := c.tok.Encode(ch)
		if i < len(resp.FinishReasons) && resp.FinishReasons[i] == "stop" {
			toks = append(toks, c.tok.EOS())
		}
		if err := c.keep(dialogue.Draw{Key: req.CacheKey, Choice: i}, prompt, toks, req.JSONSchema); err != nil {
			return llm.Response{}, err
		}
	}
	return resp, nil
}

func (c *policyChat) keep(d dialogue.Draw, prompt, completion []int, schema json.RawMessage) error {
	t := drawnTokens{prompt: prompt, completion: append([]int(nil), completion...)}
	if len(schema) > 0 && c.grammar != nil {
		var err error
		if t.forced, err = c.grammar.forced(schema, c.maxTokens, t.completion); err != nil {
			return err
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.drawn == nil {
		c.drawn = map[dialogue.Draw]drawnTokens{}
	}
	c.drawn[d] = t
	return nil
}

// tokens returns what choice d drew.
func (c *policyChat) tokens(d dialogue.Draw) (drawnTokens, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	t, ok := c.drawn[d]
	return t, ok
}
