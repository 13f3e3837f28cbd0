package candidates

import (
	"bytes"
	"encoding/json"
	"testing"

	"mascot.dev/mascot/runner/datasets"
)

// TestUnitInputsEncodeAsBefore checks that a unit's inputs with the
// sample's context encoded once (json.RawMessage) encode to the bytes the
// context slice itself gave: the unit fingerprints, and so every cached
// unit of an earlier version, stay what they were.
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
	for i, ctx := range contexts {
		before, err := json.Marshal(map[string]any{"sample": "s1", "agent": "Ann", "context": ctx})
		if err != nil {
			t.Fatal(err)
		}
		raw, err := json.Marshal(ctx)
		if err != nil {
			t.Fatal(err)
		}
		after, err := json.Marshal(map[string]any{"sample": "s1", "agent": "Ann", "context": json.RawMessage(raw)})
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(before, after) {
			t.Errorf("context %d: inputs encode as\n%s\nwere\n%s", i, after, before)
		}
	}
}
