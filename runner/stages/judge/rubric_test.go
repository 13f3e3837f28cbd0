package judge

import (
	"encoding/json"
	"testing"

	"mascot.dev/mascot/plugins/builtin/rubric"
	"mascot.dev/mascot/plugins/sdk"
	"mascot.dev/mascot/plugins/spec"
	"mascot.dev/mascot/schema"
)

// TestRubricEndpointIsTheRubricsOptions: the entry the judge stage writes
// for an experiment endpoint decodes as the rubric plugin's own Endpoint,
// durations in seconds, with the endpoint's replicas, limits and sampling.
func TestRubricEndpointIsTheRubricsOptions(t *testing.T) {
	ep := schema.Endpoint{URLs: []string{"http://a:1/v1", "http://b:1/v1"}, Model: "judge-m", APIKeyEnv: "KEYVAR",
		Concurrency: 12, Timeout: "90s", TotalTimeout: "10m", Retries: 3, EnableThinking: true,
		Sampling: schema.Sampling{TopP: 0.8, TopK: 20, RepetitionPenalty: 1.1}}
	raw, err := json.Marshal(map[string]any{"judges": []any{rubricEndpoint("jd", ep)}})
	if err != nil {
		t.Fatal(err)
	}
	cfg, ds := sdk.DecodeConfig[rubric.Config](raw)
	if spec.HasErrors(ds) || len(cfg.Judges) != 1 {
		t.Fatalf("decoding %s: %+v", raw, ds)
	}
	e := cfg.Judges[0]
	if e.Name != "jd" || e.URL != "http://a:1/v1" || len(e.URLs) != 2 || e.Model != "judge-m" || e.APIKeyEnv != "KEYVAR" ||
		e.Concurrency != 12 || e.TimeoutS != 90 || e.TotalTimeoutS != 600 || *e.MaxRetries != 3 ||
		*e.TopP != 0.8 || *e.TopK != 20 || *e.RepetitionPenalty != 1.1 || !*e.EnableThinking {
		t.Errorf("rubric endpoint = %+v from %s", e, raw)
	}
	if got := gatewayTimeout(ep).Seconds(); got != 630 {
		t.Errorf("gateway timeout %vs, want the total 600s and a 30s margin", got)
	}
}
