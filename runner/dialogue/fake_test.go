package dialogue

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"strings"
	"sync"

	"mascot.dev/mascot/llm"
	"mascot.dev/mascot/runner/datasets"
)

// fakeChatter is a scripted Chatter: reply decides each choice; it records
// every request.
type fakeChatter struct {
	mu    sync.Mutex
	calls []llm.Request
	reply func(req llm.Request, choice int) (string, error)
}

func (f *fakeChatter) Chat(_ context.Context, req llm.Request) (llm.Response, error) {
	f.mu.Lock()
	f.calls = append(f.calls, req)
	f.mu.Unlock()
	n := max(req.N, 1)
	var resp llm.Response
	for i := range n {
		text, err := f.reply(req, i)
		if err != nil {
			return llm.Response{}, err
		}
		resp.Choices = append(resp.Choices, text)
	}
	return resp, nil
}

// byRole returns the recorded requests of one role.
func (f *fakeChatter) byRole(role string) []llm.Request {
	var out []llm.Request
	for _, c := range f.calls {
		if c.Role == role {
			out = append(out, c)
		}
	}
	return out
}

// h is a small deterministic hash of the request's identity.
func h(req llm.Request, choice int) uint32 {
	x := fnv.New32a()
	fmt.Fprintf(x, "%s|%d|%d", req.CacheKey, *req.Seed, choice)
	return x.Sum32()
}

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// scripted answers every kind of request well-formedly; the content
// depends on the request so persona, directive and seeds are visible.
func scripted(roster Roster) func(llm.Request, int) (string, error) {
	return func(req llm.Request, choice int) (string, error) {
		v := h(req, choice)
		switch req.SchemaName {
		case "directive":
			a := roster[int(v)%len(roster)]
			return jsonOf(map[string]string{"agent": a.Name, "action": fmt.Sprintf("act-%d", v%97), "tone": "warm"}), nil
		case "user_reply":
			emos := []string{"sad", "calmer", "hopeful"}
			return jsonOf(map[string]string{"emotion": emos[v%3], "reply": fmt.Sprintf("user says %d", v%1000)}), nil
		case "cot":
			return jsonOf(map[string]string{"reasoning": "think", "response": fmt.Sprintf("cot reply %d", v%5)}), nil
		case "esc-strategy":
			s := ESConvStrategies()
			return jsonOf(map[string]string{"strategy": s[v%3], "reason": "r"}), nil
		case "esc-vote", "esc-tie-break":
			return fmt.Sprintf(`{"reason":"r","vote":%d}`, v%2), nil
		case "esc-reflect":
			return jsonOf(map[string]string{"critique": "ok", "revised": "reflected reply"}), nil
		}
		sys := req.Messages[0].Content
		first, _, _ := strings.Cut(sys, "\n")
		return fmt.Sprintf("%s | reply %d", first, v%1000), nil
	}
}

var errBoom = errors.New("boom")

// esSample is an emotional-support sample with an opening user message.
func esSample() datasets.Sample {
	return datasets.Sample{ID: "es-1", Dataset: "esconv", Emotion: "anxiety", Situation: "I failed my exam and fear telling my parents.",
		Problem: "academic pressure",
		Context: []datasets.Utterance{{Speaker: "seeker", Text: "Hi, I feel terrible today."}}}
}

// meetingSample is a QMSum-like sample.
func meetingSample() datasets.Sample {
	return datasets.Sample{ID: "qm-1", Dataset: "qmsum", Domain: "product", Meeting: "ES2004a", Query: "What did they decide about the remote?", StartIdx: 3,
		Context: []datasets.Utterance{{Speaker: "Project Manager", Text: "We decided on a curved remote."}, {Speaker: "Marketing", Text: "Fine by me."}}}
}

// esConfig is a mascot config with user simulation on.
func esConfig(system string) Config {
	p := 0.5
	return Config{System: system, Roster: EmotionalSupportRoster(), Turns: 4, Seed: 7,
		UserSim:  UserConfig{Enabled: true, ReplyProb: &p, Profile: ProfileBig5},
		Director: Sampling{Model: "dir"}, Speaker: Sampling{Model: "spk"}, User: Sampling{Model: "usr"},
		Baseline: BaselineConfig{SFTModel: "sft-adapter", Examples: NewExamplePool(testExamples())}}
}

func testExamples() []Example {
	return []Example{
		{Context: "I failed my exam and my parents will be angry", Response: "That sounds scary. What worries you most?", Strategy: "Question"},
		{Context: "My dog died last week and I miss him", Response: "I'm so sorry, losing him must hurt.", Strategy: "Reflection of Feelings"},
		{Context: "I lost my job and cannot pay rent", Response: "Maybe contact a local aid office.", Strategy: "Providing Suggestions"},
		{Context: "My exam results were bad again", Response: "You worked hard; one exam does not define you.", Strategy: "Affirmation and Reassurance"},
	}
}

type datasetsSample = datasets.Sample

func esSampleWithSupporter() datasets.Sample {
	s := esSample()
	s.Context = append(s.Context, datasets.Utterance{Speaker: "supporter", Text: "What happened?", Strategy: "Questions"})
	return s
}
