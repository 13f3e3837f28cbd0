package transfer

import (
	"encoding/json"
	"testing"

	"mascot.dev/mascot/results"
	"mascot.dev/mascot/results/jsonl"
)

// TestDeriveSplitUsesDatasetLabels checks that an imported episode gets the
// valence and domain the dataset loader gives the same sample (the rules
// of internal/labels): ESConv's "neutral" is neutral, not unknown, and a
// meeting id is matched as QMSum spells it.
func TestDeriveSplitUsesDatasetLabels(t *testing.T) {
	str := func(s string) *string { return &s }
	for _, c := range []struct {
		name         string
		e            jsonl.Record
		valence, dom string
	}{
		{"esconv neutral", jsonl.Record{InitialEmotion: str("neutral")}, "neutral", ""},
		{"esconv anxiety", jsonl.Record{InitialEmotion: str("Anxiety")}, "negative", ""},
		{"ed emotion key", jsonl.Record{Extra: map[string]json.RawMessage{"emotion": json.RawMessage(`"grateful"`)}}, "positive", ""},
		{"own keys win", jsonl.Record{InitialEmotion: str("sad"), Meeting: str("Bed003"), Extra: map[string]json.RawMessage{
			"valence": json.RawMessage(`"neutral"`), "domain": json.RawMessage(`"committee"`)}}, "neutral", "committee"},
		{"icsi", jsonl.Record{Meeting: str("Bed003")}, "", "academic"},
		{"ami", jsonl.Record{Meeting: str("TS3011b")}, "", "product"},
		{"committee", jsonl.Record{Meeting: str("education_17")}, "", "committee"},
		{"not an icsi id", jsonl.Record{Meeting: str("b12")}, "", ""},
	} {
		e := results.Episode{Record: c.e}
		deriveSplit(&e)
		if e.Valence != c.valence || e.Domain != c.dom {
			t.Errorf("%s: valence %q domain %q, want %q %q", c.name, e.Valence, e.Domain, c.valence, c.dom)
		}
	}
}
