package textmetrics

import (
	"regexp"
	"strings"
)

var tokenRE = regexp.MustCompile(`[\p{L}\p{N}']+|[^\s\p{L}\p{N}']`)

// Tokenize splits text into word and punctuation tokens.
func Tokenize(text string, lower bool) []string {
	if lower {
		text = strings.ToLower(text)
	}
	return tokenRE.FindAllString(text, -1)
}

// ngrams counts the n-grams of toks, keyed by their tokens joined with \x00.
func ngrams(toks []string, n int) map[string]int {
	out := map[string]int{}
	for i := 0; i+n <= len(toks); i++ {
		out[strings.Join(toks[i:i+n], "\x00")]++
	}
	return out
}
