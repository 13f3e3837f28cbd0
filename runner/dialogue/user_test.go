package dialogue

import (
	"context"
	"math"
	"strings"
	"testing"

	"mascot.dev/mascot/llm"
)

func TestUserReplyProbability(t *testing.T) {
	f := &fakeChatter{reply: scripted(EmotionalSupportRoster())}
	for _, p := range []float64{0, 0.2, 0.5, 0.8, 1} {
		userTurns, rounds := 0, 0
		for seed := range int64(200) {
			cfg := esConfig(SystemZeroShot)
			pp := p
			cfg.Seed, cfg.UserSim.ReplyProb = seed, &pp
			ep, err := RunEpisode(context.Background(), f, cfg, esSample())
			if err != nil {
				t.Fatal(err)
			}
			rounds += cfg.Turns
			for _, tr := range ep.Turns {
				if tr.TurnType == TurnUser {
					userTurns++
				}
			}
		}
		got := float64(userTurns) / float64(rounds)
		// 800 Bernoulli draws: sd <= 0.018, the bound is > 4 sd.
		if math.Abs(got-p) > 0.08 {
			t.Errorf("reply prob %v: observed %v over %d rounds", p, got, rounds)
		}
		if (p == 0 && userTurns != 0) || (p == 1 && userTurns != rounds) {
			t.Errorf("reply prob %v: %d user turns of %d", p, userTurns, rounds)
		}
	}
}

func TestUserSimulatorPromptAndEmotion(t *testing.T) {
	emotions := []string{"Sad", "calmer", "hopeful"}
	n := 0
	f := &fakeChatter{reply: func(req llm.Request, i int) (string, error) {
		if req.Role == RoleUser {
			e := emotions[n%3]
			n++
			return `{"emotion":"` + e + `","reply":"reply ` + e + `"}`, nil
		}
		return scripted(EmotionalSupportRoster())(req, i)
	}}
	one := 1.0
	cfg := esConfig(SystemMASCOT)
	cfg.UserSim.ReplyProb = &one
	cfg.UserSim.BigFive = &BigFive{Openness: 0.9, Conscientiousness: 0.5, Extraversion: 0.1, Agreeableness: 0.5, Neuroticism: 0.9}
	ep, err := RunEpisode(context.Background(), f, cfg, esSample())
	if err != nil {
		t.Fatal(err)
	}
	u := f.byRole(RoleUser)[0]
	sys := u.Messages[0].Content
	for _, want := range []string{"I failed my exam", "curious and open", "reserved and quiet", "easily worried", "anxiety"} {
		if !strings.Contains(sys, want) {
			t.Errorf("user prompt lacks %q:\n%s", want, sys)
		}
	}
	if u.SchemaName != "user_reply" || len(u.JSONSchema) == 0 || u.Model != "usr" {
		t.Errorf("user request not structured: %+v", u)
	}
	ef := ep.EmotionFields
	want := []string{"anxiety", "sad", "calmer", "hopeful", "sad"}
	if strings.Join(ef.EmotionTrajectory, ",") != strings.Join(want, ",") || ef.InitialEmotion != "anxiety" || ef.FinalEmotion != "sad" {
		t.Fatalf("emotions: %+v", ef)
	}
	if ef.UserBigFive == nil || ef.UserBigFive.Openness != 0.9 || ep.Metadata.PersonaSet != "big5" {
		t.Fatalf("profile not recorded: %+v %+v", ef.UserBigFive, ep.Metadata)
	}
	// The user's latest emotion is fed back into its next prompt.
	if !strings.Contains(f.byRole(RoleUser)[1].Messages[0].Content, "Right now you feel: sad") {
		t.Errorf("emotion not carried into the next user prompt")
	}
}

func TestMBTIProfiles(t *testing.T) {
	types := MBTITypes()
	if len(types) != 16 || !ValidMBTI("infp") || ValidMBTI("IXFP") || ValidMBTI("INF") {
		t.Fatalf("MBTI types wrong: %v", types)
	}
	seen := map[string]bool{}
	f := &fakeChatter{reply: scripted(EmotionalSupportRoster())}
	for seed := range int64(64) {
		cfg := esConfig(SystemZeroShot)
		cfg.Seed, cfg.UserSim.Profile = seed, ProfileMBTI
		ep, err := RunEpisode(context.Background(), f, cfg, esSample())
		if err != nil {
			t.Fatal(err)
		}
		if ep.UserBigFive != nil || !ValidMBTI(ep.UserMBTI) || ep.Metadata.PersonaSet != "mbti" {
			t.Fatalf("mbti episode fields: %+v", ep.EmotionFields)
		}
		seen[ep.UserMBTI] = true
	}
	if len(seen) < 10 {
		t.Fatalf("seeded MBTI draws cover only %d types", len(seen))
	}
	if d := DescribeMBTI("ENTJ"); !strings.Contains(d, "logic") || !strings.Contains(d, "plans") {
		t.Errorf("DescribeMBTI = %q", d)
	}
}
