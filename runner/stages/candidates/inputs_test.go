package candidates

import (
	"fmt"
	"testing"

	"mascot.dev/mascot/runner"
	"mascot.dev/mascot/runner/datasets"
	"mascot.dev/mascot/runner/dialogue"
)

// TestUnitInputsEncodeAsBefore checks that the inputs unitInputs gives a
// sample's units (the context encoded once, in canonical form) give the
// fingerprints the context slice itself in the inputs gave: the unit
// fingerprints, and so every cached unit of an earlier version, stay what
// they were.
func TestUnitInputsEncodeAsBefore(t *testing.T) {
	contexts := [][]datasets.Utterance{
		{{Speaker: "seeker", Text: "I can't sleep <since> the \"move\" & the job\u2028loss"},
			{Speaker: "supporter", Text: "That sounds hard.\n\tTell me more — é, 😀, \x00\x1f", Strategy: "Question"}},
		{{Speaker: "seeker", Text: "bad utf-8 \xff\xfe and a lone \xed\xa0\x80"}},
		nil,
		{},
	}
	for i := range 40 { // longer, ordinary contexts too
		var c []datasets.Utterance
		for k := range i {
			c = append(c, datasets.Utterance{Speaker: []string{"seeker", "supporter"}[k%2],
				Text: "turn " + string(rune('a'+k%26)) + " of a conversation about work, sleep and friends"})
		}
		contexts = append(contexts, c)
	}
	roster := dialogue.Roster{{Name: "Ann"}, {Name: "Bo <&>"}}
	for i, ctx := range contexts {
		smp := datasets.Sample{ID: fmt.Sprintf("s%d", i), Context: ctx}
		got, err := unitInputs(smp, roster)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(roster) {
			t.Fatalf("context %d: %d inputs for %d agents", i, len(got), len(roster))
		}
		for k, a := range roster {
			// What each unit's inputs were before: the slice itself.
			before, err := runner.UnitFingerprint("stage", map[string]any{"sample": smp.ID, "agent": a.Name, "context": smp.Context})
			if err != nil {
				t.Fatal(err)
			}
			after, err := runner.UnitFingerprint("stage", got[k])
			if err != nil {
				t.Fatal(err)
			}
			if before != after {
				t.Errorf("context %d, agent %s: fingerprint %s, was %s", i, a.Name, after, before)
			}
		}
	}
}

// BenchmarkUnitFingerprints measures what fingerprinting costs per unit:
// a sample's inputs for a roster of three, then each unit's fingerprint,
// for a context of 20 turns (2.7 kB of JSON, about the benchmark suite's
// short prompts) and of 64 (8.5 kB, longer than its QMSum-length ones).
//
//	go test -run '^$' -bench UnitFingerprints ./runner/stages/candidates
func BenchmarkUnitFingerprints(b *testing.B) {
	roster := dialogue.Roster{{Name: "The Anchor"}, {Name: "The Spark"}, {Name: "The Sage"}}
	for _, turns := range []int{20, 64} {
		var c []datasets.Utterance
		for k := range turns {
			c = append(c, datasets.Utterance{Speaker: []string{"seeker", "supporter"}[k%2],
				Text: fmt.Sprintf("Turn %d: I \"keep\" thinking about work & sleep, and whether <this> will ever ease up.", k)})
		}
		b.Run(fmt.Sprintf("turns%d", turns), func(b *testing.B) {
			for i := range b.N {
				smp := datasets.Sample{ID: fmt.Sprintf("s%d", i), Context: c}
				inputs, err := unitInputs(smp, roster)
				if err != nil {
					b.Fatal(err)
				}
				for _, in := range inputs {
					if _, err := runner.UnitFingerprint("stage", in); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*len(roster)), "µs/unit")
		})
	}
}
