package dialogue

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"mascot.dev/mascot/llm"
)

func TestEpisodeRoundsAndIndexes(t *testing.T) {
	f := &fakeChatter{reply: scripted(EmotionalSupportRoster())}
	cfg := esConfig(SystemMASCOT)
	ep, err := RunEpisode(context.Background(), f, cfg, esSample())
	if err != nil {
		t.Fatal(err)
	}
	agentTurns, rounds := 0, map[int]int{}
	for i, tr := range ep.Turns {
		if tr.TurnIdx != i {
			t.Fatalf("turn %d has turn_idx %d", i, tr.TurnIdx)
		}
		if tr.TurnType == TurnAgent {
			agentTurns++
			rounds[tr.RoundID]++
			if tr.Directive == nil || tr.Directive.AgentName != tr.AgentName || tr.DirectiveOutput == "" {
				t.Fatalf("agent turn %d lacks directive data: %+v", i, tr)
			}
			if EmotionalSupportRoster().Find(tr.AgentName) < 0 {
				t.Fatalf("agent %q not in roster", tr.AgentName)
			}
		}
		if i > 0 && tr.RoundID < ep.Turns[i-1].RoundID {
			t.Fatalf("round ids go backwards at turn %d", i)
		}
	}
	if agentTurns != cfg.Turns || len(rounds) != cfg.Turns {
		t.Fatalf("agent turns %d over %d rounds, want %d", agentTurns, len(rounds), cfg.Turns)
	}
	if got := len(f.byRole(RoleDirector)); got != cfg.Turns {
		t.Fatalf("director calls %d, want %d", got, cfg.Turns)
	}
	sum := 0
	for _, n := range ep.AgentsSpoken {
		sum += n
	}
	if sum != agentTurns {
		t.Fatalf("agents_spoken sums to %d, want %d", sum, agentTurns)
	}
	if ep.Counters != (Counters{}) {
		t.Fatalf("clean run counted failures: %+v", ep.Counters)
	}
}

func TestPersonaAndDirectiveReachSpeaker(t *testing.T) {
	roster := EmotionalSupportRoster()
	f := &fakeChatter{reply: func(req llm.Request, i int) (string, error) {
		if req.Role == RoleDirector {
			return `{"agent":"The Catalyst","action":"Ask what scares them most","tone":"Curious and gentle"}`, nil
		}
		return "ok", nil
	}}
	cfg := esConfig(SystemMASCOT)
	cfg.UserSim.Enabled = false
	if _, err := RunEpisode(context.Background(), f, cfg, esSample()); err != nil {
		t.Fatal(err)
	}
	sp := f.byRole(RoleSpeaker)
	if len(sp) != cfg.Turns {
		t.Fatalf("speaker calls %d", len(sp))
	}
	all := sp[0].Messages[0].Content + "\n" + sp[0].Messages[1].Content
	for _, want := range []string{"The Catalyst", roster[1].Description, roster[1].Style, roster[1].Goals[0],
		"Ask what scares them most", "Curious and gentle", "Hi, I feel terrible today."} {
		if !strings.Contains(all, want) {
			t.Errorf("speaker prompt lacks %q:\n%s", want, all)
		}
	}
	if strings.Contains(all, "I failed my exam") {
		t.Errorf("hidden situation leaked into the speaker prompt")
	}

	// mascot-p: name and directive, no persona card.
	f.calls = nil
	cfg.System = SystemMASCOTP
	if _, err := RunEpisode(context.Background(), f, cfg, esSample()); err != nil {
		t.Fatal(err)
	}
	p := f.byRole(RoleSpeaker)[0]
	allP := p.Messages[0].Content + "\n" + p.Messages[1].Content
	if strings.Contains(allP, roster[1].Description) || !strings.Contains(allP, "Ask what scares them most") {
		t.Errorf("mascot-p prompt wrong:\n%s", allP)
	}
}

func TestAgentPromptTemplateAndCustomTemplates(t *testing.T) {
	roster := EmotionalSupportRoster()
	roster[0].PromptTemplate = "CUSTOM {{.Agent.Name}} / {{.Directive.Tone}}"
	f := &fakeChatter{reply: func(req llm.Request, i int) (string, error) {
		if req.Role == RoleDirector {
			return "Agent: Anchor\nAction: hold\nTone: soft", nil
		}
		return "ok", nil
	}}
	cfg := esConfig(SystemMASCOT)
	cfg.Roster, cfg.Turns, cfg.UserSim.Enabled = roster, 1, false
	cfg.Templates.DirectorSystem = "DIRECTOR {{range .Roster}}[{{.Name}}]{{end}}"
	if _, err := RunEpisode(context.Background(), f, cfg, esSample()); err != nil {
		t.Fatal(err)
	}
	if got := f.byRole(RoleSpeaker)[0].Messages[0].Content; got != "CUSTOM The Anchor / soft" {
		t.Errorf("agent template not used: %q", got)
	}
	if got := f.byRole(RoleDirector)[0].Messages[0].Content; got != "DIRECTOR [The Anchor][The Catalyst][The Beacon]" {
		t.Errorf("director template not used: %q", got)
	}
	cfg.Templates.SpeakerUser = "{{.Broken"
	if _, err := RunEpisode(context.Background(), f, cfg, esSample()); err == nil || !strings.Contains(err.Error(), "speaker_user") {
		t.Errorf("broken template error = %v", err)
	}
}

func TestDirectorRequestIsStructured(t *testing.T) {
	f := &fakeChatter{reply: scripted(EmotionalSupportRoster())}
	cfg := esConfig(SystemMASCOT)
	if _, err := RunEpisode(context.Background(), f, cfg, esSample()); err != nil {
		t.Fatal(err)
	}
	d := f.byRole(RoleDirector)[0]
	var schema struct {
		Properties struct {
			Agent struct {
				Enum []string `json:"enum"`
			} `json:"agent"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(d.JSONSchema, &schema); err != nil {
		t.Fatal(err)
	}
	if strings.Join(schema.Properties.Agent.Enum, ",") != "The Anchor,The Catalyst,The Beacon" {
		t.Errorf("agent enum = %v", schema.Properties.Agent.Enum)
	}
	for _, want := range []string{"The Anchor", "The Beacon", "Hi, I feel terrible today."} {
		if !strings.Contains(d.Messages[0].Content+d.Messages[1].Content, want) {
			t.Errorf("director prompt lacks %q", want)
		}
	}
	if d.Model != "dir" || d.Seed == nil {
		t.Errorf("director request model %q seed %v", d.Model, d.Seed)
	}
}

func TestFallbacksCounted(t *testing.T) {
	cases := []struct {
		name          string
		out           string
		parse, random int
	}{
		{"garbage", "I cannot decide, sorry.", 4, 4},
		{"unknown agent", `{"agent":"The Oracle","action":"x","tone":"y"}`, 0, 4},
		{"empty", "", 0, 4},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := &fakeChatter{reply: func(req llm.Request, i int) (string, error) {
				if req.Role == RoleDirector {
					return c.out, nil
				}
				return "fine", nil
			}}
			cfg := esConfig(SystemMASCOT)
			cfg.UserSim.Enabled = false
			ep, err := RunEpisode(context.Background(), f, cfg, esSample())
			if err != nil {
				t.Fatal(err)
			}
			if ep.Counters.NumDirectiveParseFailures != c.parse || ep.Counters.NumRandomAgentFallbacks != c.random {
				t.Fatalf("counters %+v", ep.Counters)
			}
			if len(ep.Turns) != cfg.Turns {
				t.Fatalf("fallback did not continue: %d turns", len(ep.Turns))
			}
			for _, tr := range ep.Turns {
				if EmotionalSupportRoster().Find(tr.AgentName) < 0 || tr.DirectiveOutput != c.out {
					t.Fatalf("bad fallback turn %+v", tr)
				}
			}
			cfg.Strict = true
			if _, err := RunEpisode(context.Background(), f, cfg, esSample()); err == nil {
				t.Fatal("strict mode accepted a bad directive")
			}
		})
	}
}

func TestFallbackAgentsVaryWithSeed(t *testing.T) {
	f := &fakeChatter{reply: func(req llm.Request, i int) (string, error) {
		if req.Role == RoleDirector {
			return "garbage", nil
		}
		return "fine", nil
	}}
	seen := map[string]bool{}
	for seed := range int64(20) {
		cfg := esConfig(SystemMASCOT)
		cfg.Seed, cfg.UserSim.Enabled = seed, false
		ep, err := RunEpisode(context.Background(), f, cfg, esSample())
		if err != nil {
			t.Fatal(err)
		}
		for a := range ep.AgentsSpoken {
			seen[a] = true
		}
	}
	if len(seen) != 3 {
		t.Fatalf("random fallback used only %v", seen)
	}
}

func TestMascotCRandomOrder(t *testing.T) {
	f := &fakeChatter{reply: func(req llm.Request, i int) (string, error) {
		if req.Role == RoleDirector {
			return `{"agent":"The Anchor","action":"validate","tone":"calm"}`, nil
		}
		return "fine", nil
	}}
	cfg := esConfig(SystemMASCOTC)
	cfg.Turns, cfg.UserSim.Enabled = 12, false
	ep, err := RunEpisode(context.Background(), f, cfg, esSample())
	if err != nil {
		t.Fatal(err)
	}
	if len(ep.AgentsSpoken) < 2 {
		t.Fatalf("mascot-c kept the director's choice: %v", ep.AgentsSpoken)
	}
	if ep.Counters.NumRandomAgentFallbacks != 0 {
		t.Fatalf("mascot-c order counted as fallback: %+v", ep.Counters)
	}
	for _, tr := range ep.Turns {
		if tr.Directive.Action != "validate" || tr.Directive.AgentName != tr.AgentName {
			t.Fatalf("directive not kept: %+v", tr)
		}
	}
}

func TestGenerationFailuresTolerantAndStrict(t *testing.T) {
	f := &fakeChatter{reply: func(req llm.Request, i int) (string, error) {
		switch {
		case req.Role == RoleSpeaker && strings.Contains(req.CacheKey, "|r1|"):
			return "", errBoom
		case req.Role == RoleSpeaker && strings.Contains(req.CacheKey, "|r2|"):
			return "   ", nil
		case req.Role == RoleDirector && strings.Contains(req.CacheKey, "|r3|"):
			return "", errBoom
		}
		return scripted(EmotionalSupportRoster())(req, i)
	}}
	cfg := esConfig(SystemMASCOT)
	ep, err := RunEpisode(context.Background(), f, cfg, esSample())
	if err != nil {
		t.Fatal(err)
	}
	want := Counters{NumGenerationFailures: 2, NumEmptyResponses: 1, NumRandomAgentFallbacks: 1}
	if ep.Counters != want {
		t.Fatalf("counters %+v, want %+v", ep.Counters, want)
	}
	for _, tr := range ep.Turns {
		if tr.TurnType == TurnAgent && (tr.RoundID == 1 || tr.RoundID == 2) {
			t.Fatalf("failed round %d recorded a turn", tr.RoundID)
		}
	}
	cfg.Strict = true
	_, err = RunEpisode(context.Background(), f, cfg, esSample())
	if !errors.Is(err, errBoom) {
		t.Fatalf("strict error = %v", err)
	}
}

func TestSkippedSamples(t *testing.T) {
	f := &fakeChatter{reply: scripted(EmotionalSupportRoster())}
	cfg := esConfig(SystemMASCOT)
	cfg.UserSim.Enabled = false
	s := esSample()
	s.Context = nil
	ep, err := RunEpisode(context.Background(), f, cfg, s)
	if err != nil || !ep.Skipped || ep.Counters.NumSkippedSamples != 1 || len(f.calls) != 0 {
		t.Fatalf("skipped=%v counters=%+v calls=%d err=%v", ep.Skipped, ep.Counters, len(f.calls), err)
	}
	// With user simulation the user opens the conversation instead.
	cfg.UserSim.Enabled = true
	ep, err = RunEpisode(context.Background(), f, cfg, s)
	if err != nil || ep.Skipped || ep.Turns[0].TurnType != TurnUser || ep.Turns[0].TurnIdx != 0 {
		t.Fatalf("opening user turn missing: %+v %v", ep.Turns, err)
	}
	// Every speaker call failing skips the episode too.
	bad := &fakeChatter{reply: func(req llm.Request, i int) (string, error) {
		if req.Role == RoleSpeaker {
			return "", errBoom
		}
		return scripted(EmotionalSupportRoster())(req, i)
	}}
	ep, err = RunEpisode(context.Background(), bad, esConfig(SystemMASCOT), esSample())
	if err != nil || !ep.Skipped || ep.Counters.NumGenerationFailures != 4 || ep.Counters.NumSkippedSamples != 1 {
		t.Fatalf("all-failed episode: skipped=%v %+v %v", ep.Skipped, ep.Counters, err)
	}
}

func TestConfigValidation(t *testing.T) {
	bad := []func(*Config){
		func(c *Config) { c.System = "gpt" },
		func(c *Config) { c.Roster = nil },
		func(c *Config) { c.Roster = Roster{{Name: "A"}, {Name: "a"}} },
		func(c *Config) { p := 1.5; c.UserSim.ReplyProb = &p },
		func(c *Config) { c.UserSim.Profile = "enneagram" },
		func(c *Config) { c.UserSim.Profile, c.UserSim.MBTI = ProfileMBTI, "XXXX" },
		func(c *Config) { c.System, c.Baseline.SFTModel = SystemSFT, "" },
		func(c *Config) { c.Templates.UserSystem = "{{if}}" },
	}
	for i, mut := range bad {
		cfg := esConfig(SystemMASCOT)
		mut(&cfg)
		if err := cfg.Validate(); err == nil {
			t.Errorf("case %d: invalid config accepted", i)
		}
	}
	if err := esConfig(SystemMASCOT).Validate(); err != nil {
		t.Errorf("valid config rejected: %v", err)
	}
}
