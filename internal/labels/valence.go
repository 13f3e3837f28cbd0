package labels

import "strings"

// Valence groups.
const (
	Positive = "positive"
	Negative = "negative"
	Neutral  = "neutral"
)

// Valences lists the valence groups, sorted.
var Valences = []string{Negative, Neutral, Positive}

// edValence groups the 32 Empathetic Dialogues emotions (our choice, as
// listed in docs/datasets.md: 16 negative, 11 positive, 5 neutral).
var edValence = group(map[string]string{
	Negative: "afraid angry annoyed anxious apprehensive ashamed devastated disappointed disgusted embarrassed furious guilty jealous lonely sad terrified",
	Positive: "caring confident content excited faithful grateful hopeful impressed joyful proud trusting",
	Neutral:  "anticipating nostalgic prepared sentimental surprised",
})

// esconvValence: ESConv's emotion types are all distress states except
// neutral.
var esconvValence = group(map[string]string{
	Negative: "anger anxiety depression disgust fear guilt jealousy nervousness pain sadness shame",
	Neutral:  "neutral",
})

func group(words map[string]string) map[string]string {
	m := map[string]string{}
	for v, ws := range words {
		for _, w := range strings.Fields(ws) {
			m[w] = v
		}
	}
	return m
}

// ValenceOf returns the valence group of an Empathetic Dialogues or ESConv
// emotion label (any case, surrounding space ignored), or "" for an
// unknown label.
func ValenceOf(emotion string) string {
	e := strings.ToLower(strings.TrimSpace(emotion))
	if v, ok := edValence[e]; ok {
		return v
	}
	return esconvValence[e]
}

// EDValence returns the valence group of one of the 32 Empathetic
// Dialogues emotions, spelled exactly as the dataset does (lower case), and
// false for any other label.
func EDValence(emotion string) (string, bool) {
	v, ok := edValence[emotion]
	return v, ok
}
