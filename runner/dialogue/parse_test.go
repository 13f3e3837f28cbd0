package dialogue

import (
	"errors"
	"testing"

	"mascot.dev/mascot/results/jsonl"
)

func TestParseDirective(t *testing.T) {
	r := EmotionalSupportRoster()
	ok := []struct {
		name, raw, agent, action, tone string
	}{
		{"json", `{"agent":"The Anchor","action":"Validate guilt","tone":"Calm"}`, "The Anchor", "Validate guilt", "Calm"},
		{"json short name", `{"agent":"anchor","action":"a","tone":"t"}`, "The Anchor", "a", "t"},
		{"json agent_name upper keys", `{"Agent_Name":"The Beacon","Action":"Praise","Tone":"Bright"}`, "The Beacon", "Praise", "Bright"},
		{"json in fence with prose", "Sure! Here it is:\n```json\n{\"agent\": \"Catalyst\", \"action\": \"Ask why\", \"tone\": \"curious\"}\n```\nHope that helps.", "The Catalyst", "Ask why", "curious"},
		{"think then json", `<think>{"agent":"The Beacon"} maybe</think>{"agent":"The Anchor","action":"x","tone":"y"}`, "The Anchor", "x", "y"},
		{"plain lines", "Agent: The Anchor\nAction: Validate the user's feelings of guilt\nTone: Calm and empathetic", "The Anchor", "Validate the user's feelings of guilt", "Calm and empathetic"},
		{"bold markdown", "**Agent:** The Catalyst\n**Action:** Reframe the failure\n**Tone:** Gentle", "The Catalyst", "Reframe the failure", "Gentle"},
		{"bullets lower case", "- agent: beacon\n- action: highlight strengths\n- tone: hopeful", "The Beacon", "highlight strengths", "hopeful"},
		{"one line", "Agent: Anchor, Action: sit with the feeling, Tone: soft", "The Anchor", "sit with the feeling", "soft"},
		{"value on next line", "### Agent:\nThe Beacon\n### Action:\nEncourage\n### Tone:\nWarm", "The Beacon", "Encourage", "Warm"},
		{"prose before", "I think the best choice now is clear.\n\nAgent: THE CATALYST\nAction: ask a Socratic question\nTone: curious", "The Catalyst", "ask a Socratic question", "curious"},
		{"name with description", "Agent: The Anchor (emotional validator)\nAction: validate\nTone: calm", "The Anchor", "validate", "calm"},
		{"quoted", `Agent: "The Beacon"` + "\nAction: 'cheer'\nTone: [upbeat]", "The Beacon", "cheer", "upbeat"},
		{"speaker key", "Next speaker: Catalyst\nInstruction: probe\nTone: neutral", "The Catalyst", "probe", "neutral"},
		{"fullwidth colon", "Agent：Anchor\nAction：hold space\nTone：calm", "The Anchor", "hold space", "calm"},
		{"broken json falls back to text", "{agent: Anchor, oops\nAgent: The Anchor\nAction: a\nTone: b", "The Anchor", "a", "b"},
		{"missing tone", "Agent: The Beacon\nAction: praise", "The Beacon", "praise", ""},
	}
	for _, c := range ok {
		t.Run(c.name, func(t *testing.T) {
			d, err := ParseDirective(c.raw, r)
			if err != nil {
				t.Fatalf("ParseDirective: %v", err)
			}
			if d != (jsonl.Directive{AgentName: c.agent, Action: c.action, Tone: c.tone}) {
				t.Fatalf("got %+v, want agent=%q action=%q tone=%q", d, c.agent, c.action, c.tone)
			}
		})
	}
	bad := []struct {
		name, raw string
		want      error
	}{
		{"empty", "", ErrDirectiveParse},
		{"prose only", "I would let someone supportive speak next.", ErrDirectiveParse},
		{"json without agent", `{"action":"x","tone":"y"}`, ErrDirectiveParse},
		{"marker without value", "Agent:\n\nAction: x", ErrDirectiveParse},
		{"unknown agent json", `{"agent":"The Oracle","action":"x","tone":"y"}`, ErrUnknownAgent},
		{"unknown agent text", "Agent: Dr. Phil\nAction: x\nTone: y", ErrUnknownAgent},
		{"two agents named", "Agent: Anchor or Beacon\nAction: x", ErrUnknownAgent},
		{"json non-string agent", `{"agent": 3, "action":"x"}`, ErrDirectiveParse},
	}
	for _, c := range bad {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseDirective(c.raw, r)
			if !errors.Is(err, c.want) {
				t.Fatalf("err = %v, want %v", err, c.want)
			}
		})
	}
}

func TestParseDirectiveUnknownKeepsFields(t *testing.T) {
	d, err := ParseDirective(`{"agent":"Nobody","action":"comfort","tone":"soft"}`, EmotionalSupportRoster())
	if !errors.Is(err, ErrUnknownAgent) || d.Action != "comfort" || d.Tone != "soft" {
		t.Fatalf("got %+v, %v", d, err)
	}
}

func TestParseUserReply(t *testing.T) {
	cases := []struct{ raw, reply, emotion string }{
		{`{"emotion":"Sad","reply":"I just feel lost."}`, "I just feel lost.", "sad"},
		{`{"feeling":"a bit calmer now","message":"Thanks."}`, "Thanks.", "a"},
		{"Emotion: hopeful\nReply: Maybe I can try.", "Maybe I can try.", "hopeful"},
		{"**Emotion:** Angry\nWhy would you say that?", "Why would you say that?", "angry"},
		{"Just a plain reply.", "Just a plain reply.", ""},
		{"", "", ""},
	}
	for _, c := range cases {
		r, e := ParseUserReply(c.raw)
		if r != c.reply || e != c.emotion {
			t.Errorf("ParseUserReply(%q) = %q, %q; want %q, %q", c.raw, r, e, c.reply, c.emotion)
		}
	}
}

func TestParseCoT(t *testing.T) {
	cases := map[string]string{
		`{"reasoning":"x","response":"Hello there"}`:                "Hello there",
		"Let me think. The user is sad.\n**Response:** I hear you.": "I hear you.",
		"Reasoning: ...\nFinal answer: Take a walk.":                "Take a walk.",
		"No markers at all": "No markers at all",
	}
	for raw, want := range cases {
		if got := ParseCoT(raw); got != want {
			t.Errorf("ParseCoT(%q) = %q, want %q", raw, got, want)
		}
	}
}

func TestNormalizeStrategy(t *testing.T) {
	cases := map[string]string{
		"Questions": "Question", "reflection of feelings": "Reflection of Feelings", "Other": "Others",
		"self disclosure": "Self-disclosure", "I'd go with Providing Suggestions here": "Providing Suggestions",
		"Approval and Reassurance": "Affirmation and Reassurance", "banana": "",
		"Information or Question": "",
	}
	for in, want := range cases {
		if got := NormalizeStrategy(in); got != want {
			t.Errorf("NormalizeStrategy(%q) = %q, want %q", in, got, want)
		}
	}
}
