package runner_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"testing"

	"mascot.dev/mascot/internal/fakevllm"
	"mascot.dev/mascot/internal/testspec"
	"mascot.dev/mascot/results"
	"mascot.dev/mascot/runner"
)

// TestEveryRequestCarriesADerivedSeed: every chat request of candidates
// (K samples one request each) and evaluation episodes (director,
// speaker, user) carries a seed; two fresh runs of the same config send
// the very same requests, seeds included; the K samples of one context
// get K different seeds; another experiment seed changes them.
func TestEveryRequestCarriesADerivedSeed(t *testing.T) {
	runOnce := func(seed int) []string {
		srv := fakevllm.Start(t, fakevllm.Options{Record: true})
		src := fmt.Sprintf(`package spec

import "mascot.dev/experiments/personas"

name: "test/seeds"
seed: %d
datasets: train: {name: "esconv", path: %[2]q, limit: 2, seed: 1}
datasets: test: {name: "esconv", path: %[2]q, limit: 2, seed: 2, exclude: ["train"]}
rosters: support: personas.emotional_support
endpoints: [_]: {urls: [%[3]q], model: "Qwen/Qwen3-8B", supports_n: false, sampling: temperature: 0.9}
endpoints: {director: {}, speaker: {}, user: {}}
stages: cand: {kind: "candidates", dataset: "train", roster: "support", k: 3}
stages: eval: {kind: "episodes", mode: "eval", dataset: "test", roster: "support", turns: 2, user_response_probability: 1}
`, seed, testspec.ESConv, srv.URL())
		l := testspec.Load(t, src)
		store, err := results.Open(filepath.Join(t.TempDir(), "m.db"))
		if err != nil {
			t.Fatal(err)
		}
		defer store.Close()
		if _, err := runner.Execute(context.Background(), runner.Options{Loaded: l, Store: store, RunsDir: t.TempDir()}); err != nil {
			t.Fatal(err)
		}
		var bodies []string
		seedsOf := map[string]map[int64]bool{} // messages -> seeds sent with them
		for _, r := range srv.Requests() {
			if r.Path != "/v1/chat/completions" {
				continue
			}
			var b struct {
				Seed     *int64          `json:"seed"`
				Messages json.RawMessage `json:"messages"`
			}
			if err := json.Unmarshal(r.Body, &b); err != nil {
				t.Fatal(err)
			}
			if b.Seed == nil {
				t.Fatalf("a request without a seed: %s", r.Body)
			}
			if seedsOf[string(b.Messages)] == nil {
				seedsOf[string(b.Messages)] = map[int64]bool{}
			}
			seedsOf[string(b.Messages)][*b.Seed] = true
			bodies = append(bodies, string(r.Body))
		}
		// A candidate prompt is sent K = 3 times, each with its own seed.
		triples := 0
		for _, s := range seedsOf {
			if len(s) == 3 {
				triples++
			}
		}
		if triples < 6 {
			t.Fatalf("%d prompts were sampled 3 times with 3 seeds, want the 6 candidate prompts", triples)
		}
		sort.Strings(bodies)
		return bodies
	}
	a, b, other := runOnce(3), runOnce(3), runOnce(4)
	if len(a) < 20 {
		t.Fatalf("only %d requests", len(a))
	}
	if fmt.Sprint(a) != fmt.Sprint(b) {
		t.Fatal("two fresh runs of one config sent different requests")
	}
	if fmt.Sprint(a) == fmt.Sprint(other) {
		t.Fatal("another experiment seed sent the same requests (seeds)")
	}
}
