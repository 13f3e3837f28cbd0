package judge

import (
	"time"

	"mascot.dev/mascot/schema"
)

// gatewayTimeout is how long the plugin waits for one request through the
// gateway: the endpoint's whole budget (every retry the host's client
// makes) and a margin.
func gatewayTimeout(ep schema.Endpoint) time.Duration {
	total, err := time.ParseDuration(ep.TotalTimeout)
	if err != nil || total <= 0 {
		total = 5 * time.Minute // the llm client's default total deadline
	}
	return total + 30*time.Second
}

// rubricEndpoint is the built-in rubric judge's options entry for
// experiment endpoint name (rubric.Endpoint's JSON: durations in seconds).
func rubricEndpoint(name string, ep schema.Endpoint) map[string]any {
	e := map[string]any{"name": name, "url": ep.URLs[0], "urls": ep.URLs, "model": ep.Model,
		"enable_thinking": ep.EnableThinking, "concurrency": ep.Concurrency, "max_retries": ep.Retries,
		"top_p": ep.Sampling.TopP, "top_k": ep.Sampling.TopK, "repetition_penalty": ep.Sampling.RepetitionPenalty}
	if d, err := time.ParseDuration(ep.Timeout); err == nil {
		e["timeout_s"] = d.Seconds()
	}
	if d, err := time.ParseDuration(ep.TotalTimeout); err == nil {
		e["total_timeout_s"] = d.Seconds()
	}
	if ep.APIKeyEnv != "" {
		e["api_key_env"] = ep.APIKeyEnv
	}
	return e
}
