package serve

import (
	"bytes"
	"unicode/utf8"
)

// findStop returns the earliest position of a stop string in text that
// ends after from (earlier matches were found on earlier steps), and the
// string; -1 when none.
func findStop(text []byte, from int, stops []string) (int, string) {
	at, which := -1, ""
	for _, s := range stops {
		if s == "" {
			continue
		}
		start := max(0, from-len(s)+1)
		if i := bytes.Index(text[start:], []byte(s)); i >= 0 && (at < 0 || start+i < at) {
			at, which = start+i, s
		}
	}
	return at, which
}

// safePrefix is how much of text may be shown while decoding goes on: it
// holds back a tail that could start a stop string and a trailing
// incomplete UTF-8 character.
func safePrefix(text []byte, stops []string) int {
	safe := len(text)
	for _, s := range stops {
		for k := min(len(s)-1, len(text)); k > 0; k-- {
			if bytes.HasSuffix(text, []byte(s[:k])) {
				safe = min(safe, len(text)-k)
				break
			}
		}
	}
	for i := safe - 1; i >= 0 && i >= safe-utf8.UTFMax; i-- {
		if utf8.RuneStart(text[i]) {
			if !utf8.FullRune(text[i:safe]) {
				safe = i
			}
			break
		}
	}
	return safe
}
