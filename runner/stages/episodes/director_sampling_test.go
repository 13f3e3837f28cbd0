package episodes_test

import (
	"context"
	"encoding/json"
	"testing"

	"mascot.dev/mascot/internal/fakevllm"
	"mascot.dev/mascot/runner"
	"mascot.dev/mascot/schema"
)

// TestDirectorSamplingIsTheDirectors: an episodes stage's sampling sets
// every role's request, but director_sampling, when written, replaces it
// for the Director alone, so a JSON directive can get the budget it needs
// while the turns stay short (the demo asks 32 tokens for turns, 48 for
// directives), and each role's truncate_prompt_tokens reaches the server.
func TestDirectorSamplingIsTheDirectors(t *testing.T) {
	srv := fakevllm.Start(t, fakevllm.Options{Seed: 3, Record: true})
	h := newHarness(t)
	spec := writeSpec(t, srv.URL(), `concurrency: 4`,
		`ep: {kind: "episodes", dataset: "es", roster: "support", turns: 2, user_response_probability: 1,
		sampling: {max_tokens: 32, truncate_prompt_tokens: 100},
		director_sampling: {max_tokens: 48, temperature: 1.0, truncate_prompt_tokens: 170}}`)
	l, err := schema.Load(spec, runner.Default.Kinds(), schema.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := runner.Execute(context.Background(), runner.Options{Loaded: l, Store: h.store, RunsDir: t.TempDir()}); err != nil {
		t.Fatal(err)
	}
	seen := map[string]map[int]bool{}
	for _, r := range srv.Requests() {
		if r.Path != "/v1/chat/completions" {
			continue
		}
		var body struct {
			MaxTokens      int     `json:"max_tokens"`
			Temperature    float64 `json:"temperature"`
			Truncate       int     `json:"truncate_prompt_tokens"`
			ResponseFormat struct {
				JSONSchema struct {
					Name string `json:"name"`
				} `json:"json_schema"`
			} `json:"response_format"`
		}
		if err := json.Unmarshal(r.Body, &body); err != nil {
			t.Fatal(err)
		}
		role := "turn" // the Speaker's and the simulated user's requests
		if body.ResponseFormat.JSONSchema.Name == "directive" {
			role = "directive"
			if body.Temperature != 1.0 {
				t.Errorf("directive request at temperature %v, want director_sampling's 1.0", body.Temperature)
			}
		}
		if want := map[string]int{"turn": 100, "directive": 170}[role]; body.Truncate != want {
			t.Errorf("%s request truncate_prompt_tokens %d, want %d", role, body.Truncate, want)
		}
		if seen[role] == nil {
			seen[role] = map[int]bool{}
		}
		seen[role][body.MaxTokens] = true
	}
	if len(seen["directive"]) != 1 || !seen["directive"][48] {
		t.Errorf("directive requests asked max_tokens %v, want only 48", seen["directive"])
	}
	if len(seen["turn"]) != 1 || !seen["turn"][32] {
		t.Errorf("turn requests asked max_tokens %v, want only 32", seen["turn"])
	}
}
