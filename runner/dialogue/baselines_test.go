package dialogue

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"mascot.dev/mascot/llm"
)

func TestBaselinePrompts(t *testing.T) {
	cases := []struct {
		system            string
		cot, few, adapter bool
	}{
		{SystemZeroShot, false, false, false},
		{SystemZeroShotCoT, true, false, false},
		{SystemFewShot, false, true, false},
		{SystemFewShotCoT, true, true, false},
		{SystemSFT, false, false, true},
	}
	for _, c := range cases {
		t.Run(c.system, func(t *testing.T) {
			f := &fakeChatter{reply: scripted(EmotionalSupportRoster())}
			cfg := esConfig(c.system)
			cfg.UserSim.Enabled = false
			ep, err := RunEpisode(context.Background(), f, cfg, esSample())
			if err != nil {
				t.Fatal(err)
			}
			sp := f.byRole(RoleSpeaker)
			if len(sp) != cfg.Turns || len(f.byRole(RoleDirector)) != 0 {
				t.Fatalf("calls: speaker %d director %d", len(sp), len(f.byRole(RoleDirector)))
			}
			sys := sp[0].Messages[0].Content
			if got := strings.Contains(sys, "step by step"); got != c.cot {
				t.Errorf("cot instruction present=%v", got)
			}
			if got := sp[0].SchemaName == "cot"; got != c.cot {
				t.Errorf("cot schema present=%v", got)
			}
			if got := strings.Contains(sys, "Example 1:"); got != c.few {
				t.Errorf("few-shot examples present=%v", got)
			}
			if c.few && strings.Count(sys, "Reply: ") != DefaultFewShotK {
				t.Errorf("want %d examples:\n%s", DefaultFewShotK, sys)
			}
			if (sp[0].Model == "sft-adapter") != c.adapter || (ep.Metadata.SpeakerModel == "sft-adapter") != c.adapter {
				t.Errorf("model %q metadata %q", sp[0].Model, ep.Metadata.SpeakerModel)
			}
			if strings.Contains(sys, "The Anchor") {
				t.Errorf("baseline prompt mentions a persona")
			}
			for _, tr := range ep.Turns {
				if tr.AgentName != BaselineAgent || (c.cot && !strings.HasPrefix(tr.Response, "cot reply")) {
					t.Fatalf("turn %+v", tr)
				}
			}
		})
	}
}

func TestSelfConsistencyPicksConsensus(t *testing.T) {
	answers := []string{"go for a long walk outside", "you should talk to a friend today", "maybe talk to a friend today",
		"talk to a friend you trust today", "eat cake"}
	for _, supportsN := range []bool{false, true} {
		f := &fakeChatter{reply: func(req llm.Request, i int) (string, error) {
			idx := i
			if req.N <= 1 {
				idx = int(req.CacheKey[len(req.CacheKey)-1] - '0')
			}
			return `{"reasoning":"r","response":"` + answers[idx] + `"}`, nil
		}}
		cfg := esConfig(SystemSelfConsistency)
		cfg.Turns, cfg.UserSim.Enabled, cfg.SupportsN = 1, false, supportsN
		ep, err := RunEpisode(context.Background(), f, cfg, esSample())
		if err != nil {
			t.Fatal(err)
		}
		if ep.Turns[0].Response != "talk to a friend you trust today" && ep.Turns[0].Response != "you should talk to a friend today" {
			t.Fatalf("picked %q", ep.Turns[0].Response)
		}
		wantCalls := 5
		if supportsN {
			wantCalls = 1
		}
		if len(f.calls) != wantCalls {
			t.Fatalf("supportsN=%v: %d calls", supportsN, len(f.calls))
		}
	}
	if MostConsistent(nil) != -1 || MostConsistent([]string{"a"}) != 0 {
		t.Fatal("MostConsistent edge cases")
	}
	if UnigramF1("the cat sat", "the cat sat") != 1 || UnigramF1("a", "") != 0 {
		t.Fatal("UnigramF1")
	}
}

// escScript answers MultiAgentESC calls with fixed strategies and votes.
func escScript(strategies []string, votes []string, tie string) func(llm.Request, int) (string, error) {
	return func(req llm.Request, i int) (string, error) {
		idx := int(req.CacheKey[len(req.CacheKey)-1] - '0')
		switch req.SchemaName {
		case "esc-strategy":
			return strategies[idx], nil
		case "esc-vote":
			return votes[idx], nil
		case "esc-tie-break":
			return tie, nil
		case "esc-reflect":
			return `{"critique":"too long","revised":"REVISED"}`, nil
		}
		if strings.Contains(req.CacheKey, "esc-response") {
			return "response for " + req.Messages[1].Content[strings.Index(req.Messages[1].Content, `"`)+1:][:8], nil
		}
		return "the user failed an exam and feels " + req.CacheKey[len(req.CacheKey)-8:], nil
	}
}

func escTrace0(t *testing.T, ep Episode) escTrace {
	t.Helper()
	var tr escTrace
	if err := json.Unmarshal([]byte(ep.Turns[0].DirectiveOutput), &tr); err != nil {
		t.Fatal(err)
	}
	return tr
}

func TestMultiAgentESCPipeline(t *testing.T) {
	cfg := esConfig(SystemMultiAgentESC)
	cfg.Turns, cfg.UserSim.Enabled = 1, false
	cfg.Baseline.ESC.TieBreakRole = RoleJudge

	// Majority: votes 1, 1, 0 over two proposed strategies.
	f := &fakeChatter{reply: escScript(
		[]string{`{"strategy":"Question","reason":"r"}`, `Strategy: reflection of feelings`, `{"strategy":"questions"}`},
		[]string{`{"vote":1}`, `{"vote":"1"}`, `I vote [0]`}, "")}
	ep, err := RunEpisode(context.Background(), f, cfg, esSample())
	if err != nil {
		t.Fatal(err)
	}
	tr := escTrace0(t, ep)
	if len(tr.Analysis) != 3 || tr.Strategy != "Reflection of Feelings" || tr.TieBreak || !tr.Revised {
		t.Fatalf("trace %+v", tr)
	}
	if ep.Turns[0].Response != "REVISED" || ep.Turns[0].Directive.Action != "Reflection of Feelings" {
		t.Fatalf("turn %+v", ep.Turns[0])
	}
	if len(tr.Retrieved) == 0 || tr.Retrieved[0] != 0 {
		t.Fatalf("BM25 retrieval %v (the exam example should rank first)", tr.Retrieved)
	}
	strat := f.calls[3].Messages[1].Content
	if !strings.Contains(strat, "I failed my exam and my parents") || !strings.Contains(strat, "Self-disclosure") {
		t.Fatalf("deliberation prompt lacks examples or strategies:\n%s", strat)
	}
	if len(f.byRole(RoleJudge)) != 0 {
		t.Fatal("tie-break called without a tie")
	}
	// 3 analyses + 3 proposals + 2 responses + 3 votes + 1 reflection.
	if len(f.calls) != 12 {
		t.Fatalf("%d calls", len(f.calls))
	}

	// Tie: three strategies, one vote each -> the judge decides.
	f = &fakeChatter{reply: escScript(
		[]string{`{"strategy":"Question"}`, `{"strategy":"Information"}`, `{"strategy":"Self-disclosure"}`},
		[]string{`{"vote":0}`, `{"vote":1}`, `{"vote":2}`}, `{"reason":"r","vote":2}`)}
	ep, err = RunEpisode(context.Background(), f, cfg, esSample())
	if err != nil {
		t.Fatal(err)
	}
	tr = escTrace0(t, ep)
	if !tr.TieBreak || tr.Strategy != "Self-disclosure" || len(f.byRole(RoleJudge)) != 1 {
		t.Fatalf("tie trace %+v judge calls %d", tr, len(f.byRole(RoleJudge)))
	}

	// Unanimous: one strategy, no vote.
	f = &fakeChatter{reply: escScript(
		[]string{`{"strategy":"Information"}`, `{"strategy":"information"}`, `Information`}, nil, "")}
	ep, err = RunEpisode(context.Background(), f, cfg, esSample())
	if err != nil {
		t.Fatal(err)
	}
	if tr = escTrace0(t, ep); tr.Strategy != "Information" || tr.Votes != nil {
		t.Fatalf("unanimous trace %+v", tr)
	}

	// Nonsense proposals: fall back to the retrieved examples' majority.
	f = &fakeChatter{reply: escScript([]string{`banana`, `{}`, ``}, nil, "")}
	ep, err = RunEpisode(context.Background(), f, cfg, esSample())
	if err != nil {
		t.Fatal(err)
	}
	if tr = escTrace0(t, ep); tr.Strategy != "Question" {
		t.Fatalf("fallback strategy %+v", tr)
	}
}

func TestExamplePoolSearch(t *testing.T) {
	p := NewExamplePool(testExamples())
	got := p.Search("my dog died", 2)
	if len(got) == 0 || got[0] != 1 {
		t.Fatalf("Search = %v", got)
	}
	if got := p.Search("exam", 5); len(got) != 2 {
		t.Fatalf("exam matches %v, want two", got)
	}
	if got := p.Search("zebra", 3); len(got) != 0 {
		t.Fatalf("unrelated query matched %v", got)
	}
	ex := ExamplesFromSamples([]datasetsSample{esSampleWithSupporter()})
	if len(ex) != 1 || ex[0].Strategy != "Question" || !strings.Contains(ex[0].Context, "seeker: Hi") {
		t.Fatalf("ExamplesFromSamples = %+v", ex)
	}
}
