package dialogue

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"mascot.dev/mascot/llm"
)

// Chatter is what the engine needs from the LLM layer; llm's client
// implements it.
type Chatter interface {
	Chat(ctx context.Context, req llm.Request) (llm.Response, error)
}

// Roles set on llm.Request.Role.
const (
	RoleDirector = "director"
	RoleSpeaker  = "speaker"
	RoleUser     = "user"
	RoleJudge    = "judge"
)

// Sampling are per-role request settings. Nil pointers leave the endpoint's
// defaults; Model overrides the endpoint model (an adapter alias).
type Sampling struct {
	Model          string   `json:"model,omitempty"`
	Temperature    *float64 `json:"temperature,omitempty"`
	TopP           *float64 `json:"top_p,omitempty"`
	TopK           *int     `json:"top_k,omitempty"`
	MaxTokens      int      `json:"max_tokens,omitempty"`
	EnableThinking *bool    `json:"enable_thinking,omitempty"`
	// TruncatePromptTokens asks the server to keep the prompt's last k
	// tokens (vLLM's truncate_prompt_tokens); nil sends nothing.
	TruncatePromptTokens *int `json:"truncate_prompt_tokens,omitempty"`
}

// Pos locates one call inside a unit. Together with the unit key it makes
// the request's CacheKey and seed.
type Pos struct {
	Step   string // director, speaker, user, esc-emotion, ...
	Round  int
	Branch string // branch path in a tree ("" for independent episodes)
	Sample int    // sample index among repeated draws
}

// key is the deterministic cache key of a call.
// "<unit>|<role>|<step>|r<round>|b<branch>|s<sample>", built in one
// allocation (each request makes one).
func (p Pos) key(unit, role string) string {
	round, sample := strconv.Itoa(p.Round), strconv.Itoa(p.Sample)
	var b strings.Builder
	b.Grow(len(unit) + len(role) + len(p.Step) + len(round) + len(p.Branch) + len(sample) + 8)
	for _, s := range [...]string{unit, "|", role, "|", p.Step, "|r", round, "|b", p.Branch, "|s", sample} {
		b.WriteString(s)
	}
	return b.String()
}

// caller wraps a Chatter with the unit's key, seed, strictness and counters.
type caller struct {
	ch       Chatter
	unit     string // cache keys
	seedUnit string // seeds
	seed     int64
	strict   bool
	together bool // Config.Together
	counters *Counters
	// lastErr is the last failure counted by fail (tolerant mode goes on
	// without it, but a caller left with nothing can say why).
	lastErr error
	// directorAsked and directorAnswered count the Director's requests and
	// its successes, directorErr is its last failure (silent reads them).
	directorAsked, directorAnswered int
	directorErr                     error
}

// call is one request. n > 1 asks for n choices in one request.
func (c *caller) call(ctx context.Context, role string, s Sampling, pos Pos, msgs []llm.Message,
	schema json.RawMessage, schemaName string, n int) (llm.Response, error) {
	resp, err := c.ch.Chat(ctx, c.request(role, s, pos, msgs, schema, schemaName, n))
	return resp, c.called(role, pos, err)
}

// request is the request of one call.
func (c *caller) request(role string, s Sampling, pos Pos, msgs []llm.Message,
	schema json.RawMessage, schemaName string, n int) llm.Request {
	seed := reqSeed(c.seed, c.seedUnit, role, pos.Step, strconv.Itoa(pos.Round), pos.Branch, strconv.Itoa(pos.Sample))
	req := llm.Request{
		Role: role, Model: s.Model, Messages: msgs,
		Temperature: s.Temperature, TopP: s.TopP, TopK: s.TopK, MaxTokens: s.MaxTokens,
		EnableThinking: s.EnableThinking, Seed: &seed, TruncatePromptTokens: s.TruncatePromptTokens,
		JSONSchema: schema, SchemaName: schemaName,
		CacheKey: pos.key(c.unit, role),
	}
	if n > 1 {
		req.N = n
	}
	return req
}

// called notes the outcome of a call at pos (the Director's are counted)
// and returns its error, saying which call it was.
func (c *caller) called(role string, pos Pos, err error) error {
	if err != nil {
		err = fmt.Errorf("calling %s (%s round %d): %w", role, pos.Step, pos.Round, err)
	}
	if role == RoleDirector {
		c.directorAsked++
		if err != nil {
			c.directorErr = err
		} else {
			c.directorAnswered++
		}
	}
	return err
}

// silent is the error of a conversation in which every Director request
// failed (tolerant mode included): each turn then went to the random-agent
// fallback, so the conversation is undirected, not the one the spec asked
// for. A config error (a max_tokens the directive schema cannot fit) looks
// like this, and is found on the first episode instead of after a stage
// of undirected ones. (A Speaker that never answered leaves no agent turn:
// the episode is skipped and counted as such.)
func (c *caller) silent() error {
	if n := c.directorAsked; n > 0 && c.directorAnswered == 0 {
		return fmt.Errorf("every %s request of this conversation failed (%d of %d), so no turn was directed: %w",
			RoleDirector, n, n, c.directorErr)
	}
	return nil
}

// fail counts a generation failure; in strict mode it returns err.
func (c *caller) fail(err error) error {
	c.counters.NumGenerationFailures++
	c.lastErr = err
	if c.strict {
		return err
	}
	return nil
}

// empty counts an empty response; in strict mode it returns an error.
func (c *caller) empty(what string) error {
	c.counters.NumEmptyResponses++
	if c.strict {
		return fmt.Errorf("%w: %s", ErrEmptyResponse, what)
	}
	return nil
}

// text calls and returns the first choice, trimmed.
func (c *caller) text(ctx context.Context, role string, s Sampling, pos Pos, msgs []llm.Message,
	schema json.RawMessage, schemaName string) (string, error) {
	resp, err := c.call(ctx, role, s, pos, msgs, schema, schemaName, 1)
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(resp.Text()), nil
}

// Draw locates one sampled choice: the CacheKey of the request that drew
// it and its index among that request's choices. A Chatter that keeps what
// it sampled per request (the Director's policy during GRPO rollouts) finds
// a choice's tokens by it.
type Draw struct {
	Key    string
	Choice int
}

// many returns k choices: one request with n = k when supportsN, else k
// requests with distinct sample indexes. Missing choices from an n request
// are topped up with single requests. Failed draws are counted, left empty
// and marked false in ok (tolerant) or returned as an error (strict). from
// says which request and choice each one came from.
func (c *caller) many(ctx context.Context, role string, s Sampling, pos Pos, msgs []llm.Message,
	schema json.RawMessage, schemaName string, k int, supportsN bool) (out []string, ok []bool, from []Draw, err error) {
	out, ok, from = make([]string, 0, k), make([]bool, 0, k), make([]Draw, 0, k)
	if supportsN && k > 1 {
		resp, err := c.call(ctx, role, s, pos, msgs, schema, schemaName, k)
		if err != nil {
			if err := c.fail(err); err != nil {
				return nil, nil, nil, err
			}
		} else {
			for i, ch := range resp.Choices {
				if len(out) < k {
					out = append(out, strings.TrimSpace(ch))
					ok = append(ok, true)
					from = append(from, Draw{Key: pos.key(c.unit, role), Choice: i})
				}
			}
		}
	}
	if c.together && k-len(out) > 1 && !c.strict {
		return c.manyAtOnce(ctx, role, s, pos, msgs, schema, schemaName, k, out, ok, from)
	}
	for i := len(out); i < k; i++ {
		p := pos
		p.Sample = pos.Sample + i
		t, err := c.text(ctx, role, s, p, msgs, schema, schemaName)
		if err != nil {
			if err := c.fail(err); err != nil {
				return nil, nil, nil, err
			}
		}
		out = append(out, t)
		ok = append(ok, err == nil)
		from = append(from, Draw{Key: p.key(c.unit, role)})
	}
	return out, ok, from, nil
}

// manyAtOnce is many's single requests from out's length to k sent at once
// (Config.Together, tolerant mode): each draw and its outcome are noted in
// sample order, as one after another would note them.
func (c *caller) manyAtOnce(ctx context.Context, role string, s Sampling, pos Pos, msgs []llm.Message,
	schema json.RawMessage, schemaName string, k int, out []string, ok []bool, from []Draw) ([]string, []bool, []Draw, error) {
	first := len(out)
	resps, errs := make([]llm.Response, k-first), make([]error, k-first)
	var wg sync.WaitGroup
	for j := range resps {
		p := pos
		p.Sample = pos.Sample + first + j
		req := c.request(role, s, p, msgs, schema, schemaName, 1)
		wg.Go(func() { resps[j], errs[j] = c.ch.Chat(ctx, req) })
	}
	wg.Wait()
	for j := range resps {
		p := pos
		p.Sample = pos.Sample + first + j
		var t string
		err := c.called(role, p, errs[j])
		if err == nil {
			t = strings.TrimSpace(resps[j].Text())
		} else if err := c.fail(err); err != nil {
			return nil, nil, nil, err
		}
		out = append(out, t)
		ok = append(ok, err == nil)
		from = append(from, Draw{Key: p.key(c.unit, role)})
	}
	return out, ok, from, nil
}

// msgs builds a system + user message pair.
func msgs(system, user string) []llm.Message {
	return []llm.Message{{Role: "system", Content: system}, {Role: "user", Content: user}}
}
