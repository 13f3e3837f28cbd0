package textmetrics

import (
	"context"
	"encoding/json"
	"math"
	"testing"

	"mascot.dev/mascot/plugins/sdk"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

var fixture = sdk.Episode{ID: "ep", Turns: []sdk.Turn{
	{Role: "agent", Speaker: "Anchor", Text: "the cat sat"},
	{Role: "user", Speaker: "user", Text: "hello there"},
	{Role: "agent", Speaker: "Catalyst", Text: "the cat ran"},
	{Role: "agent", Speaker: "Beacon", Text: "a dog ran"},
}}

// Hand computation, 3-gram BLEU, uniform weights, smoothing 1 (eps 0.1),
// agent turns only: u1 = the cat sat, u2 = the cat ran, u3 = a dog ran.
//
//	u1 vs {u2,u3}: p1 = 2/3 (the, cat), p2 = 1/2 ("the cat"), p3 = 0 -> 0.1/1
//	               BP = 1 (c = 3 = r); BLEU = (2/3 * 1/2 * 0.1)^(1/3) = (1/30)^(1/3)
//	u2 vs {u1,u3}: p1 = 3/3, p2 = 1/2 ("the cat"), p3 -> 0.1; BLEU = (0.05)^(1/3)
//	u3 vs {u1,u2}: p1 = 1/3 (ran), p2 = 0 -> 0.1/2 = 0.05, p3 -> 0.1
//	               BLEU = (1/3 * 0.05 * 0.1)^(1/3) = (1/600)^(1/3)
//	Self-BLEU = mean of the three = (0.32183 + 0.36840 + 0.11856) / 3 = 0.26960
func TestSelfBLEUByHand(t *testing.T) {
	want := (math.Cbrt(1.0/30) + math.Cbrt(0.05) + math.Cbrt(1.0/600)) / 3
	m := NewSelfBLEU()
	res, err := m.Compute(context.Background(), []sdk.Episode{fixture})
	if err != nil {
		t.Fatal(err)
	}
	got := res.Values[0].Values["self_bleu"]
	if !near(got, want) || math.Abs(got-0.26960) > 5e-5 {
		t.Fatalf("self_bleu = %.6f, want %.6f", got, want)
	}
	if res.Aggregate["self_bleu"] != got || res.AggregateN["self_bleu"] != 1 {
		t.Fatalf("aggregate: %+v", res)
	}
}

func TestSentenceBLEUBrevityAndNoMatch(t *testing.T) {
	ref := [][]string{{"the", "cat", "sat"}}
	// Hyp "the cat", n = 2: p1 = 2/2, p2 = 1/1; c = 2 < r = 3, so
	// BP = exp(1 - 3/2) = exp(-0.5) = 0.60653.
	if got := SentenceBLEU(ref, []string{"the", "cat"}, 2); !near(got, math.Exp(-0.5)) {
		t.Fatalf("brevity: %v", got)
	}
	// No unigram in common: 0 even with smoothing (NLTK).
	if got := SentenceBLEU(ref, []string{"dogs", "bark"}, 3); got != 0 {
		t.Fatalf("no match: %v", got)
	}
	// Closest reference length, shorter on ties: hyp of 4 between refs of
	// 3 and 5 takes r = 3, so BP = 1 (c > r).
	refs := [][]string{{"a", "b", "c", "d", "e"}, {"a", "b", "c"}}
	if got := SentenceBLEU(refs, []string{"a", "b", "c", "x"}, 1); !near(got, 0.75) {
		t.Fatalf("tie: %v (want p1 = 3/4, BP = 1)", got)
	}
}

// Distinct-n over agent turns: tokens the cat sat | the cat ran | a dog ran.
//
//	unigrams: 9 in all, distinct {the, cat, sat, ran, a, dog} = 6 -> 6/9
//	bigrams: 6 in all (the cat, cat sat, the cat, cat ran, a dog, dog ran),
//	         distinct 5 -> 5/6
func TestDistinctByHand(t *testing.T) {
	m := NewDistinct()
	if ds, _ := m.Configure(context.Background(), json.RawMessage(`{"ns":[1,2,3]}`)); len(ds) > 0 {
		t.Fatal(ds)
	}
	res, _ := m.Compute(context.Background(), []sdk.Episode{fixture})
	v := res.Values[0].Values
	// trigrams: 3 in all, all distinct -> 1
	if !near(v["distinct_1"], 6.0/9) || !near(v["distinct_2"], 5.0/6) || v["distinct_3"] != 1 {
		t.Fatalf("distinct: %v", v)
	}
	// With the user turn: + hello there -> 11 unigrams, 8 distinct.
	_, _ = m.Configure(context.Background(), json.RawMessage(`{"include_user":true}`))
	res, _ = m.Compute(context.Background(), []sdk.Episode{fixture})
	if !near(res.Values[0].Values["distinct_1"], 8.0/11) {
		t.Fatalf("include_user: %v", res.Values[0].Values)
	}
}

func TestConfigErrorsAndShortEpisode(t *testing.T) {
	m := NewSelfBLEU()
	ds, _ := m.Configure(context.Background(), json.RawMessage(`{"n":0.5}`))
	if len(ds) != 1 || ds[0].Path[0] != "n" {
		t.Fatalf("diagnostics: %+v", ds)
	}
	ds, _ = m.Configure(context.Background(), json.RawMessage(`{"n":12}`))
	if len(ds) != 1 || ds[0].Summary != "n must be between 1 and 8" {
		t.Fatalf("diagnostics: %+v", ds)
	}
	res, _ := m.Compute(context.Background(), []sdk.Episode{{ID: "short", Turns: fixture.Turns[:1]}})
	if _, ok := res.Values[0].Values["self_bleu"]; ok || len(res.Values[0].Diagnostics) != 1 {
		t.Fatalf("short episode: %+v", res.Values[0])
	}
}

func TestTokenize(t *testing.T) {
	got := Tokenize("It's fine, really!", true)
	want := []string{"it's", "fine", ",", "really", "!"}
	if len(got) != len(want) {
		t.Fatalf("%q", got)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("%q", got)
		}
	}
}
