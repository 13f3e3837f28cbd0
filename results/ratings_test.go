package results

import (
	"context"
	"strings"
	"testing"
)

// TestCrossRunPreferences: a cross-run rating round-trips with its runs and
// criterion, is found through any of its runs and not through another, and
// stays out of the runs' own preferences; bad ones are refused.
func TestCrossRunPreferences(t *testing.T) {
	s := openTemp(t)
	ctx := context.Background()
	for _, id := range []string{"a", "b", "c"} {
		mustRun(t, s, id)
	}
	p := HumanPreference{RaterID: "ann", ContextID: "conv-1", Criterion: "fidelity",
		Systems: []string{"a:mascot", "b:zero-shot"}, Runs: []string{"a", "b"}, EpisodeIDs: []int64{1, 2}, Choice: "b:zero-shot"}
	if _, err := s.AddHumanPreferences(ctx, []HumanPreference{p}); err != nil {
		t.Fatal(err)
	}
	got, err := s.CrossRunPreferences(ctx, []string{"b"})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Criterion != "fidelity" || strings.Join(got[0].Runs, ",") != "a,b" || got[0].RunID != "" {
		t.Fatalf("read back %+v", got)
	}
	if other, _ := s.CrossRunPreferences(ctx, []string{"c"}); len(other) != 0 {
		t.Errorf("run c sees %d cross-run ratings, want 0", len(other))
	}
	if own, _ := s.HumanPreferences(ctx, "a"); len(own) != 0 {
		t.Errorf("run a's own preferences include %d cross-run ones", len(own))
	}
	for name, bad := range map[string]func(*HumanPreference){
		"65-byte rater":  func(p *HumanPreference) { p.RaterID = strings.Repeat("r", MaxRaterID+1) },
		"runs mismatch":  func(p *HumanPreference) { p.Runs = p.Runs[:1] },
		"foreign choice": func(p *HumanPreference) { p.Choice = "c:mascot" },
	} {
		q := p
		q.Runs = append([]string(nil), p.Runs...)
		bad(&q)
		if _, err := s.AddHumanPreferences(ctx, []HumanPreference{q}); err == nil {
			t.Errorf("%s: stored", name)
		}
	}
	if n := count(t, s, `SELECT COUNT(*) FROM human_preferences`); n != 1 {
		t.Errorf("%d rows after the refused ones, want 1", n)
	}
}
