package train_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"mascot.dev/mascot/internal/httpguard/guardtest"
	"mascot.dev/mascot/llm"
	"mascot.dev/mascot/results"
	"mascot.dev/mascot/runner"
	"mascot.dev/mascot/runner/stages/train"
	"mascot.dev/mascot/schema"
)

// probe stands in for the episodes kind: its one unit forges, while the
// run is running, the requests a web page could send to the run's built-in
// engine, and records what each got.
type probe struct {
	env *runner.Env
	mu  *sync.Mutex
	got map[string]int
}

func (p *probe) Units(context.Context) ([]runner.Unit, error) {
	return []runner.Unit{{Key: "probe", Inputs: "probe"}}, nil
}

func (p *probe) Run(ctx context.Context, _ runner.Unit) (runner.Commit, error) {
	url := p.env.Exp.Endpoints["engine"].URLs[0]
	port := url[strings.LastIndex(url, ":")+1 : strings.LastIndex(url, "/v1")]
	token := p.env.EngineTokens["engine"]
	unload := `{"lora_name":"speaker-adapter"}`
	load := `{"lora_name":"evil","lora_path":"/tmp"}`
	for _, c := range []struct {
		name, method, path, body string
		headers                  map[string]string
	}{
		{"cross-site text/plain unload", "POST", "/unload_lora_adapter", unload, map[string]string{"Origin": "http://evil.example", "Content-Type": "text/plain"}},
		{"cross-site load", "POST", "/load_lora_adapter", load, map[string]string{"Origin": "http://evil.example"}},
		{"cross-site fetch with the token", "POST", "/load_lora_adapter", load, map[string]string{"Sec-Fetch-Site": "cross-site", "Authorization": "Bearer " + token}},
		{"rebinding Host", "GET", "/models", "", map[string]string{"Host": "evil.example:" + port}},
		{"rebinding Host with the token", "POST", "/load_lora_adapter", load, map[string]string{"Host": "evil.example:" + port, "Authorization": "Bearer " + token}},
		{"same-origin load without the token", "POST", "/load_lora_adapter", load, nil},
		{"chat without the token", "POST", "/chat/completions", `{"messages":[{"role":"user","content":"hi"}],"max_tokens":1}`, nil},
		{"own client", "GET", "/models", "", map[string]string{"Authorization": "Bearer " + token}},
	} {
		code, _, err := guardtest.Send(ctx, c.method, url+c.path, c.body, c.headers)
		if err != nil {
			return nil, err
		}
		p.mu.Lock()
		p.got[c.name] = code
		p.mu.Unlock()
	}
	// The run's own client, which sends the token, is served.
	if _, err := p.env.LLM.Chat(ctx, llm.Request{Role: "director", Endpoint: "engine", MaxTokens: 2,
		Messages: []llm.Message{{Role: "user", Content: "hello"}}}); err != nil {
		return nil, err
	}
	return func(*results.Tx) error { return nil }, nil
}

// TestRunEngineRefusesForgedRequests runs an experiment whose builtin
// endpoint serves a pretrain stage's model, and, from a stage of the
// running run, forges cross-site and DNS-rebinding requests (with and
// without the run's token) against the engine the run started: all are
// refused, while the run's own client (and a request with the token) is
// served.
func TestRunEngineRefusesForgedRequests(t *testing.T) {
	got := map[string]int{}
	var mu sync.Mutex
	reg := runner.Default.WithStage("episodes", "probe", func(env *runner.Env, _ schema.Stage) (runner.Stage, error) {
		return &probe{env: env, mu: &mu, got: got}, nil
	})
	l := writeSpec(t, `endpoints: engine: {kind: "builtin", model: "mascot-tiny", model_stage: "pre"}
stages: probe: {kind: "episodes", dataset: "es", roster: "support", director: "engine", user: "engine"}
`)
	h := newHarness(t, l, reg)
	eng := train.NewEngine()
	defer eng.Close()
	h.opts.Services.Engine = eng
	h.run()
	want := map[string]int{
		"cross-site text/plain unload":       403,
		"cross-site load":                    403,
		"cross-site fetch with the token":    403,
		"rebinding Host":                     403,
		"rebinding Host with the token":      403,
		"same-origin load without the token": 401,
		"chat without the token":             401,
		"own client":                         200,
	}
	for name, code := range want {
		if got[name] != code {
			t.Errorf("%s: %d, want %d", name, got[name], code)
		}
	}
}
