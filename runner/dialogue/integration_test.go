package dialogue_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"mascot.dev/mascot/internal/fakevllm"
	"mascot.dev/mascot/llm"
	"mascot.dev/mascot/runner/datasets"
	"mascot.dev/mascot/runner/dialogue"
)

// newClient points every role at srv through the real llm client.
func newClient(t *testing.T, srv *fakevllm.Server, cache llm.Cache) *llm.Client {
	t.Helper()
	c, err := llm.New(llm.Config{
		Endpoints: []llm.Endpoint{{Name: "vllm", URLs: []string{srv.URL()}, Model: "Qwen/Qwen3-8B",
			Concurrency: 4, Timeout: 5 * time.Second, BackoffBase: time.Millisecond, BackoffMax: 5 * time.Millisecond}},
		Default: "vllm", Cache: cache, Seed: 1,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func meeting() datasets.Sample {
	return datasets.Sample{ID: "qm-7", Dataset: "qmsum", Domain: "product", Meeting: "ES2004a", StartIdx: 2,
		Query: "What did the group decide about the remote control's shape?",
		Context: []datasets.Utterance{{Speaker: "Project Manager", Text: "So we go for the curved design."},
			{Speaker: "Industrial Designer", Text: "Yes, curved, with rubber buttons."}}}
}

// TestThroughFakeVLLM runs MASCOT episodes through llm against the
// fake vLLM server: persona and directive reach the speaker, garbage
// directives are counted as random fallbacks one for one, and a cached
// rerun replays the same episode without a request.
func TestThroughFakeVLLM(t *testing.T) {
	srv := fakevllm.Start(t, fakevllm.Options{Seed: 3, Faults: fakevllm.Faults{GarbageDirective: 0.3}})
	cache := llm.NewMemCache()
	client := newClient(t, srv, cache)
	cfg := dialogue.Config{System: dialogue.SystemMASCOT, Roster: dialogue.MeetingRoster(), Turns: 8, Seed: 11,
		Models: dialogue.ModelNames{Director: "Qwen/Qwen3-8B", Speaker: "Qwen/Qwen3-8B"}}
	ep, err := dialogue.RunEpisode(context.Background(), client, cfg, meeting())
	if err != nil {
		t.Fatal(err)
	}
	if len(ep.Turns) != cfg.Turns {
		t.Fatalf("%d turns, counters %+v", len(ep.Turns), ep.Counters)
	}
	for _, tr := range ep.Turns {
		// The fake echoes at most the first two words of a persona name.
		name := strings.Fields(tr.AgentName)
		want := "I'm " + strings.Join(name[:min(2, len(name))], " ") + "."
		echo := "[directive: " + tr.Directive.Action + " | " + tr.Directive.Tone + "]"
		if !strings.HasPrefix(tr.Response, want) || (tr.Directive.Action != "" && !strings.HasSuffix(tr.Response, echo)) {
			t.Fatalf("persona or directive lost: %+v", tr)
		}
	}
	garbage := srv.Counters().Faults[fakevllm.FaultGarbageDirective]
	if garbage == 0 || int64(ep.Counters.NumRandomAgentFallbacks) != garbage {
		t.Fatalf("fallbacks %d, garbage directives injected %d", ep.Counters.NumRandomAgentFallbacks, garbage)
	}
	served := srv.Counters().Served["/v1/chat/completions"]
	again, err := dialogue.RunEpisode(context.Background(), newClient(t, srv, cache), cfg, meeting())
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(ep)
	b, _ := json.Marshal(again)
	if string(a) != string(b) || srv.Counters().Served["/v1/chat/completions"] != served {
		t.Fatalf("cached rerun differs or hit the server")
	}
}

// TestBranchingThroughFakeVLLM grows a tree with n = K requests and the
// user simulator's structured replies.
func TestBranchingThroughFakeVLLM(t *testing.T) {
	srv := fakevllm.Start(t, fakevllm.Options{Seed: 4})
	client := newClient(t, srv, nil)
	one := 1.0
	cfg := dialogue.Config{System: dialogue.SystemMASCOT, Roster: dialogue.EmotionalSupportRoster(), Turns: 3, Seed: 5,
		SupportsN: true, Branching: dialogue.BranchConfig{K: 3, Rounds: []int{0, 2}},
		UserSim: dialogue.UserConfig{Enabled: true, ReplyProb: &one, Profile: dialogue.ProfileBig5}}
	s := datasets.Sample{ID: "es-9", Dataset: "esconv", Emotion: "sadness", Situation: "My best friend moved away.",
		Context: []datasets.Utterance{{Speaker: "seeker", Text: "I feel so alone lately."}}}
	tree, err := dialogue.RunBranching(context.Background(), client, cfg, s)
	if err != nil {
		t.Fatal(err)
	}
	if len(tree.Nodes) != 1+3+3+9 || len(tree.Leaves()) != 9 || tree.Counters != (dialogue.Counters{}) {
		t.Fatalf("nodes %d leaves %d counters %+v", len(tree.Nodes), len(tree.Leaves()), tree.Counters)
	}
	ep := tree.Episode(tree.Leaves()[0])
	if len(ep.Turns) != 6 || len(ep.EmotionTrajectory) != 4 || ep.UserBigFive == nil {
		t.Fatalf("leaf episode %+v", ep)
	}
	for _, tr := range ep.Turns {
		if tr.TurnType == dialogue.TurnUser && (tr.Emotion == "" || tr.Response == "") {
			t.Fatalf("user turn %+v", tr)
		}
	}
}
