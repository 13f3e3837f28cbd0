package labels

import (
	"sort"
	"testing"
)

func TestValenceGroups(t *testing.T) {
	em := edEmotions()
	if len(em) != 32 {
		t.Fatalf("%d emotions, want 32", len(em))
	}
	n := map[string]int{}
	for _, e := range em {
		n[ValenceOf(e)]++
	}
	if n[Negative] != 16 || n[Positive] != 11 || n[Neutral] != 5 {
		t.Errorf("valence groups = %v, want 16/11/5", n)
	}
	for e, v := range map[string]string{
		"Terrified": Negative, " trusting ": Positive, "surprised": Neutral, "bored": "", "": "",
		// ESConv emotion types: distress states, and neutral.
		"anxiety": Negative, "Depression": Negative, "sadness": Negative, "anger": Negative,
		"fear": Negative, "shame": Negative, "disgust": Negative, "nervousness": Negative,
		"guilt": Negative, "pain": Negative, "jealousy": Negative, "neutral": Neutral,
	} {
		if got := ValenceOf(e); got != v {
			t.Errorf("ValenceOf(%q) = %q, want %q", e, got, v)
		}
	}
}

func TestDomainRules(t *testing.T) {
	for id, want := range map[string]string{
		"ES2004a": DomainProduct, "IS1003d": DomainProduct, "TS3011b": DomainProduct,
		"Bed003": DomainAcademic, "Bmr023": DomainAcademic, "covid_4": DomainCommittee,
		"education_17": DomainCommittee, "ESX": "", "B12": "", "meeting": "", "bed003": "",
	} {
		if got := DomainFromMeetingID(id); got != want {
			t.Errorf("DomainFromMeetingID(%q) = %q, want %q", id, got, want)
		}
	}
	for _, c := range []struct {
		speakers []string
		want     string
	}{
		{[]string{"Project Manager", "Marketing", "User Interface", "Industrial Designer"}, DomainProduct},
		{[]string{"Grad A", "Grad B", "Grad C"}, DomainAcademic},
		{[]string{"Professor B", "PhD A", "Postdoc C", "Grad D"}, DomainAcademic},
		{[]string{"Lynne Neagle AM", "Kirsty Williams AM", "Marketing"}, DomainCommittee},
		{nil, DomainCommittee},
	} {
		if got := DomainFromSpeakers(c.speakers); got != c.want {
			t.Errorf("DomainFromSpeakers(%v) = %q, want %q", c.speakers, got, c.want)
		}
	}
}

// edEmotions returns the 32 Empathetic Dialogues emotion labels, sorted.
func edEmotions() []string {
	out := make([]string, 0, len(edValence))
	for e := range edValence {
		out = append(out, e)
	}
	sort.Strings(out)
	return out
}
