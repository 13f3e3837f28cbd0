package episodes_test

import (
	"encoding/json"
	"strings"
	"testing"

	"mascot.dev/mascot/internal/fakevllm"
	"mascot.dev/mascot/internal/realdata"
	"mascot.dev/mascot/internal/testspec"
	"mascot.dev/mascot/runner/datasets"
)

// TestFewShotOnMeetingsShowsOtherMeetingsAnswers runs the few-shot
// baseline on real QMSum queries (the shipped train sample, four meetings)
// and reads the prompts the server received: each holds reference answers
// of queries about other meetings as examples, and none about the meeting
// the user asks about.
func TestFewShotOnMeetingsShowsOtherMeetingsAnswers(t *testing.T) {
	dir := realdata.File(t, "qmsum")
	samples, err := datasets.Load(datasets.Spec{Name: datasets.QMSum, Path: dir, Split: "train"})
	if err != nil {
		t.Fatal(err)
	}
	answerOf := map[string]string{} // reference answer -> meeting
	for _, s := range samples {
		if s.Answer != "" {
			answerOf[strings.TrimSpace(s.Answer)] = s.Meeting
		}
	}
	srv := fakevllm.Start(t, fakevllm.Options{Record: true})
	ep := `{urls: ["` + srv.URL() + `"], model: "Qwen/Qwen3-8B", retries: 2, timeout: "5s"}`
	spec := testspec.Write(t, `package spec

import "mascot.dev/experiments/personas"

name: "test/meeting-few-shot"
datasets: qm: {name: "qmsum", path: "`+dir+`", split: "train", limit: 6, seed: 3}
rosters: meet: personas.meetings
endpoints: director: `+ep+`
endpoints: speaker: `+ep+`
endpoints: user: `+ep+`
stages: ep: {kind: "episodes", mode: "eval", dataset: "qm", roster: "meet", system: "few-shot", turns: 1, few_shot_examples: 3}
`)
	h := newHarness(t)
	h.run(spec, false)
	prompts := 0
	for _, r := range srv.Requests() {
		var body struct {
			Messages []struct{ Role, Content string } `json:"messages"`
		}
		if err := json.Unmarshal(r.Body, &body); err != nil || len(body.Messages) == 0 {
			continue
		}
		sys := body.Messages[0].Content
		if !strings.Contains(sys, "Examples of good replies") {
			continue
		}
		prompts++
		var asked string
		for _, m := range body.Messages {
			for a := range answerOf {
				if m.Role == "user" && strings.Contains(m.Content, a) {
					t.Errorf("a reference answer is in the user message: %q", a)
				}
			}
		}
		shown := 0
		for a, meeting := range answerOf {
			if strings.Contains(sys, "Reply: "+a) {
				shown++
				if asked == "" {
					asked = meetingAsked(t, body.Messages[len(body.Messages)-1].Content, samples)
				}
				if meeting == asked {
					t.Errorf("an example answers another query about the meeting asked about (%s): %q", meeting, a)
				}
			}
		}
		if shown != 3 {
			t.Errorf("the prompt shows %d reference answers as examples, want 3:\n%s", shown, sys)
		}
	}
	if prompts != 6 {
		t.Fatalf("%d few-shot prompts with examples, want 6 (one per query)", prompts)
	}
}

// meetingAsked finds the meeting whose transcript the user message quotes.
func meetingAsked(t *testing.T, user string, samples []datasets.Sample) string {
	t.Helper()
	best, hits := "", 0
	count := map[string]int{}
	for _, s := range samples {
		for _, u := range s.Context {
			if len(u.Text) > 40 && strings.Contains(user, u.Text) {
				count[s.Meeting]++
			}
		}
	}
	for m, n := range count {
		if n > hits {
			best, hits = m, n
		}
	}
	if best == "" {
		t.Fatalf("no meeting's transcript found in the user message:\n%.400s", user)
	}
	return best
}
