package rubric

import (
	"fmt"
	"net/url"
	"strconv"

	"mascot.dev/mascot/plugins/spec"
)

// Endpoint is one judge model behind an OpenAI-compatible server, as the
// plugin's options write it: plain JSON numbers and strings (durations in
// seconds), owned by this plugin, so the host's client settings are not
// part of the options contract. The judge stage fills it from the
// experiment's endpoint; the plugin builds its llm client from it.
type Endpoint struct {
	// Name identifies the judge in scores (default: the model id).
	Name string `json:"name"`
	URL  string `json:"url"` // base URL, e.g. http://gpu01:8008/v1
	// URLs lists every replica's base URL; empty means [url].
	URLs  []string `json:"urls,omitempty"`
	Model string   `json:"model"`
	// APIKeyEnv is the NAME of the environment variable holding the key;
	// the key itself is never configured, logged or returned.
	APIKeyEnv   string  `json:"api_key_env"`
	Temperature float64 `json:"temperature"` // default 0, and 0 is really sent
	MaxTokens   int     `json:"max_tokens"`
	MaxRetries  *int    `json:"max_retries"` // default 2; 0 = no retries
	TimeoutS    float64 `json:"timeout_s"`   // per HTTP attempt, default 120
	// TotalTimeoutS bounds one request, its retries included; 0 means the
	// client's default.
	TotalTimeoutS float64 `json:"total_timeout_s,omitempty"`
	// Concurrency bounds this judge's requests in flight over its
	// replicas; 0 means the client's default.
	Concurrency int `json:"concurrency,omitempty"`
	// TopP, TopK and RepetitionPenalty, when set, are sent with every
	// request (the temperature is Temperature's).
	TopP              *float64 `json:"top_p,omitempty"`
	TopK              *int     `json:"top_k,omitempty"`
	RepetitionPenalty *float64 `json:"repetition_penalty,omitempty"`
	// EnableThinking, when set, is sent as chat_template_kwargs.enable_thinking.
	EnableThinking *bool `json:"enable_thinking"`
	// NoResponseFormat turns off response_format json_schema for servers
	// that reject it; the tolerant parser still reads the output.
	NoResponseFormat bool `json:"no_response_format"`
}

// Config is the rubric judge's configuration.
type Config struct {
	Judges []Endpoint `json:"judges"`
	// Mode is "score" (default) or "compare" (items of kind comparison).
	Mode string `json:"mode"`
	// Criteria restricts the criteria scored (ids); empty = all of the level.
	Criteria []string `json:"criteria"`
	// BlockTurns > 0 scores episodes in blocks of that many turns and
	// reports the mean over blocks.
	BlockTurns int `json:"block_turns"`
	// Swap judges each comparison also in reversed order (default true).
	Swap *bool `json:"swap"`
	// Concurrency bounds parallel model calls (default 4).
	Concurrency int `json:"concurrency"`
}

// Validate implements sdk.Validator and fills defaults.
func (c *Config) Validate() []spec.Diagnostic {
	var ds []spec.Diagnostic
	if len(c.Judges) == 0 {
		ds = append(ds, spec.AttrError([]string{"judges"}, "at least one judge endpoint is required", ""))
	}
	names := map[string]bool{}
	for i := range c.Judges {
		j := &c.Judges[i]
		p := func(f string) []string { return []string{"judges", strconv.Itoa(i), f} }
		if u, err := url.Parse(j.URL); j.URL == "" || err != nil || u.Scheme == "" || u.Host == "" {
			ds = append(ds, spec.AttrError(p("url"), "judge url must be an absolute http(s) URL", j.URL))
		}
		for k, r := range j.URLs {
			if u, err := url.Parse(r); err != nil || u.Scheme == "" || u.Host == "" {
				ds = append(ds, spec.AttrError([]string{"judges", strconv.Itoa(i), "urls", strconv.Itoa(k)}, "judge url must be an absolute http(s) URL", r))
			}
		}
		if j.TotalTimeoutS < 0 || j.Concurrency < 0 {
			ds = append(ds, spec.AttrError(p("total_timeout_s"), "total_timeout_s and concurrency must be >= 0", ""))
		}
		if j.Model == "" {
			ds = append(ds, spec.AttrError(p("model"), "judge model is required", ""))
		}
		if j.Name == "" {
			j.Name = j.Model
		}
		if names[j.Name] {
			ds = append(ds, spec.AttrError(p("name"), "judge names must be unique", j.Name))
		}
		names[j.Name] = true
		if j.MaxRetries == nil {
			two := 2
			j.MaxRetries = &two
		}
		if j.TimeoutS <= 0 {
			j.TimeoutS = 120
		}
		if j.MaxTokens == 0 {
			j.MaxTokens = 1024
		}
	}
	switch c.Mode {
	case "":
		c.Mode = "score"
	case "score", "compare":
	default:
		ds = append(ds, spec.AttrError([]string{"mode"}, `mode must be "score" or "compare"`, c.Mode))
	}
	known := map[string]bool{}
	for _, cr := range PaperV1() {
		known[cr.ID] = true
	}
	for i, id := range c.Criteria {
		if !known[id] {
			ds = append(ds, spec.AttrError([]string{"criteria", strconv.Itoa(i)}, "unknown criterion",
				fmt.Sprintf("%q is not a %s criterion", id, RubricVersion)))
		}
	}
	if c.BlockTurns < 0 {
		ds = append(ds, spec.AttrError([]string{"block_turns"}, "block_turns must be >= 0", ""))
	}
	if c.Swap == nil {
		t := true
		c.Swap = &t
	}
	if c.Concurrency <= 0 {
		c.Concurrency = 4
	}
	return ds
}
