package nli

import (
	"net/url"

	"mascot.dev/mascot/plugins/spec"
)

// Config is the nli-contradiction metric's configuration.
type Config struct {
	URL                 string  `json:"url"`
	Model               string  `json:"model"`
	API                 string  `json:"api"` // "vllm-classify" (default) | "tei-predict"
	APIKeyEnv           string  `json:"api_key_env"`
	Pairing             string  `json:"pairing"`   // "same-round" (default) | "all-pairs" | "adjacent-agent"
	Direction           string  `json:"direction"` // "temporal" (default) | "bidirectional"
	AllowRoundInference bool    `json:"allow_round_inference"`
	ContradictionLabel  string  `json:"contradiction_label"` // default "CONTRADICTION"
	PairSeparator       string  `json:"pair_separator"`      // vllm-classify only; default "</s></s>"
	BatchSize           int     `json:"batch_size"`          // default 32
	TimeoutS            float64 `json:"timeout_s"`           // default 60
}

// Validate implements sdk.Validator and fills defaults.
func (c *Config) Validate() []spec.Diagnostic {
	var ds []spec.Diagnostic
	if u, err := url.Parse(c.URL); c.URL == "" || err != nil || u.Scheme == "" || u.Host == "" {
		ds = append(ds, spec.AttrError([]string{"url"}, "url must be an absolute http(s) URL of the NLI server", c.URL))
	}
	oneOf := func(field string, v *string, def string, allowed ...string) {
		if *v == "" {
			*v = def
			return
		}
		for _, a := range allowed {
			if *v == a {
				return
			}
		}
		ds = append(ds, spec.AttrError([]string{field}, "unknown value "+*v, "allowed: "+join(allowed)))
	}
	oneOf("api", &c.API, "vllm-classify", "vllm-classify", "tei-predict")
	oneOf("pairing", &c.Pairing, "same-round", "same-round", "all-pairs", "adjacent-agent")
	oneOf("direction", &c.Direction, "temporal", "temporal", "bidirectional")
	if c.ContradictionLabel == "" {
		c.ContradictionLabel = "CONTRADICTION"
	}
	if c.PairSeparator == "" {
		c.PairSeparator = "</s></s>"
	}
	if c.BatchSize <= 0 {
		c.BatchSize = 32
	}
	if c.TimeoutS <= 0 {
		c.TimeoutS = 60
	}
	return ds
}

func join(xs []string) string {
	out := ""
	for i, x := range xs {
		if i > 0 {
			out += ", "
		}
		out += x
	}
	return out
}
