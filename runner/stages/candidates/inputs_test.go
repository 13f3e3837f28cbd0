package candidates

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"

	"mascot.dev/mascot/runner/datasets"
	"mascot.dev/mascot/runner/dialogue"
)

// TestUnitInputsEncodeAsBefore checks that the inputs unitInputs gives a
// sample's units (the context encoded once, as json.RawMessage) encode to
// the bytes the context slice itself gave: the unit fingerprints, and so
// every cached unit of an earlier version, stay what they were.
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
			before, err := json.Marshal(map[string]any{"sample": smp.ID, "agent": a.Name, "context": smp.Context})
			if err != nil {
				t.Fatal(err)
			}
			after, err := json.Marshal(got[k])
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(before, after) {
				t.Errorf("context %d, agent %s: inputs encode as\n%s\nwere\n%s", i, a.Name, after, before)
			}
		}
	}
}
