package results

import (
	"encoding/json"
	"testing"
)

// TestDeriveSplitUsesDatasetLabels checks that an imported episode gets the
// valence and domain the dataset loader gives the same sample (the rules
// of internal/labels): ESConv's "neutral" is neutral, not unknown, and a
// meeting id is matched as QMSum spells it.
func TestDeriveSplitUsesDatasetLabels(t *testing.T) {
	str := func(s string) *string { return &s }
	for _, c := range []struct {
		name         string
		e            Episode
		valence, dom string
	}{
		{"esconv neutral", Episode{InitialEmotion: str("neutral")}, "neutral", ""},
		{"esconv anxiety", Episode{InitialEmotion: str("Anxiety")}, "negative", ""},
		{"ed emotion key", Episode{Extra: map[string]json.RawMessage{"emotion": json.RawMessage(`"grateful"`)}}, "positive", ""},
		{"own keys win", Episode{InitialEmotion: str("sad"), Meeting: str("Bed003"), Extra: map[string]json.RawMessage{
			"valence": json.RawMessage(`"neutral"`), "domain": json.RawMessage(`"committee"`)}}, "neutral", "committee"},
		{"icsi", Episode{Meeting: str("Bed003")}, "", "academic"},
		{"ami", Episode{Meeting: str("TS3011b")}, "", "product"},
		{"committee", Episode{Meeting: str("education_17")}, "", "committee"},
		{"not an icsi id", Episode{Meeting: str("b12")}, "", ""},
	} {
		deriveSplit(&c.e)
		if c.e.Valence != c.valence || c.e.Domain != c.dom {
			t.Errorf("%s: valence %q domain %q, want %q %q", c.name, c.e.Valence, c.e.Domain, c.valence, c.dom)
		}
	}
}
