package markers

import (
	"strings"
	"unicode"
)

// words splits text into lower-case words: runs of letters, digits and
// apostrophes.
func words(text string) []string {
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\''
	})
}

func joinWords(ws []string) string { return strings.Join(ws, " ") }

// stopwords are function words: they repeat in any text, so they count
// neither as repetition nor as persona markers.
var stopwords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a about after all also am an and any are as at be because been before
		being but by can could did do does doing for from had has have he her here him his how i if in into is
		it it's its just me more most my no not now of on one only or our out over she should so some than that
		the their them then there these they this those to too up us very was we were what when where which
		while who why will with would you your yours`) {
		m[w] = true
	}
	return m
}()

// content reports whether w counts as a content word.
func content(w string) bool { return !stopwords[w] }

// fragment reports whether w is a word fragment: a single letter other
// than "a", "i" and "o", or a token of letters without a vowel (y
// counts as one).
func fragment(w string) bool {
	letters := 0
	for _, r := range w {
		if unicode.IsLetter(r) {
			letters++
		}
	}
	if letters == 0 {
		return false // a number
	}
	if len([]rune(w)) == 1 {
		return w != "a" && w != "i" && w != "o"
	}
	return !strings.ContainsAny(w, "aeiouy")
}

// markerWords are the marker words of a persona card: its content words
// of four letters or more, each once, in order.
func markerWords(card string) []string {
	seen := map[string]bool{}
	var out []string
	for _, w := range words(card) {
		if len([]rune(w)) < 4 || !content(w) || seen[w] {
			continue
		}
		seen[w] = true
		out = append(out, w)
	}
	return out
}
