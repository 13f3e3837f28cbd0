package llm

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"time"
)

// Sampling holds default sampling parameters; a Request's own values win.
// Nil pointers are "unset": the server's default applies.
type Sampling struct {
	Temperature       *float64 `json:"temperature,omitempty"`
	TopP              *float64 `json:"top_p,omitempty"`
	TopK              *int     `json:"top_k,omitempty"`
	MaxTokens         int      `json:"max_tokens,omitempty"`
	RepetitionPenalty *float64 `json:"repetition_penalty,omitempty"`
	// TruncatePromptTokens: see Request.TruncatePromptTokens.
	TruncatePromptTokens *int     `json:"truncate_prompt_tokens,omitempty"`
	Seed                 *int     `json:"seed,omitempty"`
	Stop                 []string `json:"stop,omitempty"`
}

// Endpoint is one logical model server: a model behind one or more replica
// URLs. It holds the name of the environment variable with the API key,
// never the key itself, so it can be logged and stored.
type Endpoint struct {
	Name string   `json:"name"`
	URLs []string `json:"urls"` // base URLs ending in /v1, one per replica
	// Model is the served model name; empty means the first base model
	// that GET /v1/models lists.
	Model     string `json:"model,omitempty"`
	APIKeyEnv string `json:"api_key_env,omitempty"`
	// APIKey is a key given directly (a run's engine token); it wins over
	// APIKeyEnv and is never written out.
	APIKey string `json:"-"`

	Concurrency  int           `json:"concurrency,omitempty"`   // in-flight attempts over all replicas; default 16
	Timeout      time.Duration `json:"timeout,omitempty"`       // per attempt; default 60s
	TotalTimeout time.Duration `json:"total_timeout,omitempty"` // per request, retries included; default 5m
	Retries      int           `json:"retries,omitempty"`       // extra attempts after the first; default 4, -1 for none
	BackoffBase  time.Duration `json:"backoff_base,omitempty"`  // default 200ms
	BackoffMax   time.Duration `json:"backoff_max,omitempty"`   // default 10s
	Cooldown     time.Duration `json:"cooldown,omitempty"`      // replica cool-down after a failure; default 2s
	RetryEmpty   bool          `json:"retry_empty,omitempty"`   // retry when a choice comes back empty

	Sampling       Sampling `json:"sampling"`
	EnableThinking *bool    `json:"enable_thinking,omitempty"` // chat_template_kwargs.enable_thinking
}

func (e Endpoint) withDefaults() Endpoint {
	if e.Concurrency <= 0 {
		e.Concurrency = 16
	}
	if e.Timeout <= 0 {
		e.Timeout = 60 * time.Second
	}
	if e.TotalTimeout <= 0 {
		e.TotalTimeout = 5 * time.Minute
	}
	if e.Retries == 0 {
		e.Retries = 4
	} else if e.Retries < 0 {
		e.Retries = 0
	}
	if e.BackoffBase <= 0 {
		e.BackoffBase = 200 * time.Millisecond
	}
	if e.BackoffMax <= 0 {
		e.BackoffMax = 10 * time.Second
	}
	if e.Cooldown <= 0 {
		e.Cooldown = 2 * time.Second
	}
	return e
}

// apiKey reads the key from the environment. The error names the variable,
// never a value.
func (e Endpoint) apiKey() (string, error) {
	if e.APIKey != "" {
		return e.APIKey, nil
	}
	if e.APIKeyEnv == "" {
		return "", nil
	}
	k, ok := os.LookupEnv(e.APIKeyEnv)
	if !ok || k == "" {
		return "", fmt.Errorf("endpoint %q: environment variable %s is unset or empty", e.Name, e.APIKeyEnv)
	}
	return k, nil
}

func (e Endpoint) validate() error {
	if e.Name == "" {
		return errors.New("endpoint without a name")
	}
	if len(e.URLs) == 0 {
		return fmt.Errorf("endpoint %q: no URLs", e.Name)
	}
	for _, u := range e.URLs {
		p, err := url.Parse(u)
		if err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
			return fmt.Errorf("endpoint %q: URL %q is not an http(s) URL", e.Name, redactURL(u))
		}
	}
	return nil
}

// Config is a Client's configuration.
type Config struct {
	Endpoints []Endpoint `json:"endpoints"`
	// Roles maps a role (director, speaker, user, judge, ...) to an endpoint
	// name.
	Roles map[string]string `json:"roles"`
	// Default is the endpoint for roles that Roles does not list. Judge
	// roles (judge, judge:*, judge-*) never fall back to it.
	Default string `json:"default,omitempty"`

	Cache Cache            `json:"-"` // optional; consulted when Request.CacheKey is set
	Trace func(TraceEvent) `json:"-"` // optional; called once per request
	// Journal, when set, records every attempt of a request with a
	// CacheKey before it is sent (see Journal); the attempts it records
	// are then not added to a context's Tally, which would lose them in
	// a kill.
	Journal Journal `json:"-"`
	// RunSeed, when set, gives every request with a CacheKey and no seed
	// of its own (nor of its endpoint) the seed DeriveSeed(*RunSeed, key).
	RunSeed *int64 `json:"-"`
	// Offline answers every request from the Cache and sends nothing: a
	// request the cache does not hold fails with KindOffline (replay),
	// after Missed (when set) is told of it. Adapter loads do nothing.
	Offline bool                   `json:"-"`
	Missed  func(role, key string) `json:"-"`
	// Seed seeds the retry jitter (0: time-based).
	Seed uint64 `json:"-"`
}

// isJudgeRole reports whether role must be configured explicitly.
func isJudgeRole(role string) bool {
	return role == "judge" || strings.HasPrefix(role, "judge:") || strings.HasPrefix(role, "judge-") ||
		strings.HasPrefix(role, "judge_")
}

// redactURL drops user info and the query from u, so a key put into a URL
// by mistake is not echoed.
func redactURL(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return "<unparseable URL>"
	}
	p.User = nil
	p.RawQuery = ""
	p.Fragment = ""
	return p.String()
}
