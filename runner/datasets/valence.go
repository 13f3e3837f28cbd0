package datasets

import (
	"fmt"
	"sort"
	"strings"
)

// Valences.
const (
	Positive = "positive"
	Negative = "negative"
	Neutral  = "neutral"
)

// edValence groups the 32 Empathetic Dialogues emotions (our choice, as
// listed in docs/mascot.md: 16 negative, 11 positive, 5 neutral).
var edValence = map[string]string{}

func init() {
	groups := map[string]string{
		Negative: "afraid angry annoyed anxious apprehensive ashamed devastated disappointed disgusted embarrassed furious guilty jealous lonely sad terrified",
		Positive: "caring confident content excited faithful grateful hopeful impressed joyful proud trusting",
		Neutral:  "anticipating nostalgic prepared sentimental surprised",
	}
	for v, words := range groups {
		for _, w := range strings.Fields(words) {
			edValence[w] = v
		}
	}
}

// esconvValence: ESConv's emotions are all distress states except neutral.
var esconvValence = map[string]string{
	"anger": Negative, "anxiety": Negative, "depression": Negative, "disgust": Negative,
	"fear": Negative, "guilt": Negative, "jealousy": Negative, "nervousness": Negative,
	"pain": Negative, "sadness": Negative, "shame": Negative, "neutral": Neutral,
}

// ValenceOf returns the valence group of an Empathetic Dialogues or ESConv
// emotion label, or "" for an unknown label.
func ValenceOf(emotion string) string {
	e := strings.ToLower(strings.TrimSpace(emotion))
	if v, ok := edValence[e]; ok {
		return v
	}
	return esconvValence[e]
}

// EDEmotions returns the 32 Empathetic Dialogues emotion labels, sorted.
func EDEmotions() []string {
	out := make([]string, 0, len(edValence))
	for e := range edValence {
		out = append(out, e)
	}
	sort.Strings(out)
	return out
}

var knownDomains = []string{DomainAcademic, DomainCommittee, DomainProduct}
var knownValences = []string{Negative, Neutral, Positive}

func (f Filters) validate() error {
	for _, v := range f.Valence {
		if !contains(knownValences, strings.ToLower(v)) {
			return fmt.Errorf("filtering by valence: unknown valence %q (want %s)", v, strings.Join(knownValences, ", "))
		}
	}
	for _, d := range f.Domain {
		if !contains(knownDomains, strings.ToLower(d)) {
			return fmt.Errorf("filtering by domain: unknown domain %q (want %s)", d, strings.Join(knownDomains, ", "))
		}
	}
	return nil
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}
