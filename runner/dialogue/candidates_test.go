package dialogue

import (
	"context"
	"errors"
	"strings"
	"testing"

	"mascot.dev/mascot/llm"
)

func TestGenerateCandidates(t *testing.T) {
	roster := EmotionalSupportRoster()
	for _, supportsN := range []bool{false, true} {
		f := &fakeChatter{reply: scripted(roster)}
		cfg := CandidateConfig{K: 8, Seed: 3, SupportsN: supportsN, Roster: roster, Speaker: Sampling{Model: "spk"},
			Directive: &Directive{AgentName: "The Beacon", Action: "name a strength", Tone: "bright"}}
		set, err := GenerateCandidates(context.Background(), f, cfg, esSample(), roster[2])
		if err != nil {
			t.Fatal(err)
		}
		if len(set.Candidates) != 8 || set.AgentName != "The Beacon" || set.SampleID != "es-1" {
			t.Fatalf("set %+v", set)
		}
		if supportsN {
			if len(f.calls) != 1 || f.calls[0].N != 8 {
				t.Fatalf("n request: %d calls, n=%d", len(f.calls), f.calls[0].N)
			}
		} else {
			seeds, keys := map[int]bool{}, map[string]bool{}
			for _, c := range f.calls {
				seeds[*c.Seed], keys[c.CacheKey] = true, true
				if c.N > 1 {
					t.Fatalf("n sent without server support")
				}
			}
			if len(f.calls) != 8 || len(seeds) != 8 || len(keys) != 8 {
				t.Fatalf("%d calls, %d seeds, %d keys", len(f.calls), len(seeds), len(keys))
			}
		}
		for i, c := range set.Candidates {
			if c.Index != i || !strings.HasPrefix(c.Response, "You are The Beacon") {
				t.Fatalf("candidate %+v", c)
			}
		}
		prompt := set.Prompt[0].Content + set.Prompt[1].Content
		for _, want := range []string{roster[2].Description, "name a strength", "bright", "Hi, I feel terrible today."} {
			if !strings.Contains(prompt, want) {
				t.Fatalf("prompt lacks %q", want)
			}
		}
	}
}

func TestGenerateCandidatesTopUpAndFailures(t *testing.T) {
	roster := EmotionalSupportRoster()
	// The server returns only 3 of the 5 choices asked for with n.
	f := &fakeChatter{reply: func(req llm.Request, i int) (string, error) {
		if req.N > 1 && i >= 3 {
			return "", nil
		}
		return scripted(roster)(req, i)
	}}
	short := &shortChatter{inner: f, keep: 3}
	set, err := GenerateCandidates(context.Background(), short, CandidateConfig{K: 5, SupportsN: true, Roster: roster}, esSample(), roster[0])
	if err != nil || len(set.Candidates) != 5 || len(f.calls) != 3 {
		t.Fatalf("top-up: %d candidates, %d calls, %v", len(set.Candidates), len(f.calls), err)
	}
	if f.calls[1].N > 1 || !strings.HasSuffix(f.calls[1].CacheKey, "|s3") {
		t.Fatalf("top-up request %+v", f.calls[1])
	}

	// Failed and empty draws are counted and dropped; strict returns them.
	bad := &fakeChatter{reply: func(req llm.Request, i int) (string, error) {
		switch {
		case strings.HasSuffix(req.CacheKey, "|s1"):
			return "", errBoom
		case strings.HasSuffix(req.CacheKey, "|s2"):
			return " ", nil
		}
		return "ok", nil
	}}
	set, err = GenerateCandidates(context.Background(), bad, CandidateConfig{K: 4, Roster: roster}, esSample(), roster[0])
	if err != nil || len(set.Candidates) != 2 || set.Candidates[1].Index != 3 ||
		set.Counters != (Counters{NumGenerationFailures: 1, NumEmptyResponses: 1}) || !errors.Is(set.LastError, errBoom) {
		t.Fatalf("tolerant: %+v %v", set, err)
	}
	if _, err := GenerateCandidates(context.Background(), bad, CandidateConfig{K: 4, Strict: true, Roster: roster}, esSample(), roster[0]); err == nil {
		t.Fatal("strict accepted a failure")
	}
	if _, err := GenerateCandidates(context.Background(), bad, CandidateConfig{K: 0}, esSample(), roster[0]); err == nil {
		t.Fatal("k=0 accepted")
	}
	// Generic prompt: no persona card.
	g := &fakeChatter{reply: scripted(roster)}
	set, err = GenerateCandidates(context.Background(), g, CandidateConfig{K: 1, Generic: true}, esSample(), roster[0])
	if err != nil || strings.Contains(set.Prompt[0].Content, roster[0].Description) {
		t.Fatalf("generic prompt %q %v", set.Prompt[0].Content, err)
	}
}

// shortChatter trims n-requests to keep choices, like a server that
// ignores part of n.
type shortChatter struct {
	inner *fakeChatter
	keep  int
}

func (s *shortChatter) Chat(ctx context.Context, req llm.Request) (llm.Response, error) {
	r, err := s.inner.Chat(ctx, req)
	if len(r.Choices) > s.keep {
		r.Choices = r.Choices[:s.keep]
	}
	return r, err
}
