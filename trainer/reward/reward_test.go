package reward

import (
	"context"
	"errors"
	"math"
	"regexp"
	"testing"
)

func TestFormat(t *testing.T) {
	f := Format(FormatOptions{})
	cases := map[string]float64{
		"That sounds hard. I'm here for you.":      1,
		"Alex: that sounds hard.":                  0.75,
		"<think>\n\n</think>\n\nI hear you":        0.5,
		"   ":                                      0.5, // clean, no tag; empty and no sentence end
		"Summary of the meeting: budget approved!": 1,   // a colon later is not a speaker tag
	}
	for in, want := range cases {
		got, err := f(context.Background(), "p", in)
		if err != nil || got != want {
			t.Errorf("Format(%q) = %g, %v; want %g", in, got, err, want)
		}
	}
	p := Format(FormatOptions{Pattern: regexp.MustCompile(`\[\w+\] .+`)})
	if v, _ := p(context.Background(), "", "[empathy] Say more."); v != 1 {
		t.Errorf("pattern match gave %g", v)
	}
	if v, _ := p(context.Background(), "", "x [empathy] Say more."); v != 0 {
		t.Errorf("partial match gave %g", v)
	}
}

func TestConciseness(t *testing.T) {
	f, err := Conciseness(4)
	if err != nil {
		t.Fatal(err)
	}
	for in, want := range map[string]float64{"": 0, "a b c": 1, "a b c d e f": 0.5, "a b c d e f g h i": 0} {
		if got, _ := f(context.Background(), "", in); got != want {
			t.Errorf("Conciseness(%q) = %g, want %g", in, got, want)
		}
	}
	if _, err := Conciseness(0); err == nil {
		t.Error("target 0 accepted")
	}
	g, err := ConcisenessWithin(4, 8)
	if err != nil {
		t.Fatal(err)
	}
	for in, want := range map[string]float64{"": 0, "a": 0.25, "a b c": 0.75, "a b c d": 1, "a b c d e f g h": 1, "a b c d e f g h i j": 0.75} {
		if got, _ := g(context.Background(), "", in); got != want {
			t.Errorf("ConcisenessWithin(4, 8)(%q) = %g, want %g", in, got, want)
		}
	}
	if _, err := ConcisenessWithin(9, 8); err == nil {
		t.Error("a minimum above the target accepted")
	}
}

func TestWeightedAndJudge(t *testing.T) {
	judge, err := Judge(func(context.Context, string, string) (float64, error) { return 4, nil }, 1, 5)
	if err != nil {
		t.Fatal(err)
	}
	rm := ModelScore(func(context.Context, string, string) (float64, error) { return -0.5, nil })
	abstain := func(context.Context, string, string) (float64, error) { return 0, ErrAbstain }
	parts := []Component{{"judge", 2, judge}, {"rm", 1, rm}, {"none", 5, abstain}}
	total, vals, err := Evaluate(context.Background(), parts, "p", "c")
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(total-(2*0.75-0.5)) > 1e-12 || vals["judge"] != 0.75 || !math.IsNaN(vals["none"]) {
		t.Errorf("total %g, values %v", total, vals)
	}
	if v, _ := Weighted(Component{"none", 1, abstain})(context.Background(), "", ""); !math.IsNaN(v) {
		t.Errorf("all abstaining gave %g, want NaN", v)
	}
	boom := errors.New("boom")
	_, err = Weighted(Component{"bad", 1, func(context.Context, string, string) (float64, error) { return 0, boom }})(context.Background(), "", "")
	if !errors.Is(err, boom) {
		t.Errorf("error %v does not wrap the component's", err)
	}
}
