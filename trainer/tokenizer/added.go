package tokenizer

import (
	"sort"
	"unicode"
)

// AddedToken is an entry of tokenizer.json's added_tokens: a string matched
// literally in the input before pre-tokenization and mapped to one id.
type AddedToken struct {
	ID      int    `json:"id"`
	Content string `json:"content"`
	// SingleWord: only match when not inside a word (no word character
	// directly before or after).
	SingleWord bool `json:"single_word"`
	// LStrip, RStrip: the match swallows the whitespace on its left/right.
	LStrip bool `json:"lstrip"`
	RStrip bool `json:"rstrip"`
	// Normalized: match against the normalized text instead of the raw text.
	Normalized bool `json:"normalized"`
	// Special: dropped by DecodeSkipSpecial.
	Special bool `json:"special"`
}

// matcher finds added tokens, leftmost-longest, as the tokenizers crate's
// Aho-Corasick automaton does.
type matcher struct {
	byFirst map[byte][]*AddedToken // candidates per first byte, longest first
}

func newMatcher(toks []*AddedToken, content func(*AddedToken) string) *matcher {
	m := &matcher{byFirst: map[byte][]*AddedToken{}}
	for _, t := range toks {
		c := content(t)
		if c == "" {
			continue
		}
		m.byFirst[c[0]] = append(m.byFirst[c[0]], t)
	}
	for b, l := range m.byFirst {
		sort.SliceStable(l, func(i, j int) bool { return len(content(l[i])) > len(content(l[j])) })
		m.byFirst[b] = l
	}
	return m
}

// segment is a piece of input: either plain text (tok == nil) or one added
// token.
type segment struct {
	text string
	tok  *AddedToken
}

// split cuts s into plain text and added tokens, following find_matches of
// the tokenizers crate: single_word candidates inside words are skipped,
// lstrip/rstrip widen the match over adjacent whitespace.
func (m *matcher) split(s string, content func(*AddedToken) string, emit func(segment)) {
	if len(m.byFirst) == 0 {
		emit(segment{text: s})
		return
	}
	start := 0 // end of the last emitted segment
	for i := 0; i < len(s); {
		t := m.longestAt(s, i, content)
		if t == nil {
			i++
			continue
		}
		from, to := i, i+len(content(t))
		i = to
		if from < start { // inside whitespace an rstrip token swallowed
			continue
		}
		if t.SingleWord && (endsWithWord(s[:from]) || startsWithWord(s[to:])) {
			continue
		}
		if t.LStrip {
			from = max(trailingSpaceStart(s[:from]), start)
		}
		if t.RStrip {
			to += leadingSpaceLen(s[to:])
		}
		if start < from {
			emit(segment{text: s[start:from]})
		}
		emit(segment{text: s[from:to], tok: t})
		start = to
	}
	if start < len(s) {
		emit(segment{text: s[start:]})
	}
}

func (m *matcher) longestAt(s string, i int, content func(*AddedToken) string) *AddedToken {
	for _, t := range m.byFirst[s[i]] {
		c := content(t)
		if len(s)-i >= len(c) && s[i:i+len(c)] == c {
			return t
		}
	}
	return nil
}

// isWord is Rust regex's \w: alphabetic, marks, decimal digits, connector
// punctuation and the joiners.
func isWord(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsMark(r) || unicode.Is(unicode.Nd, r) ||
		unicode.Is(unicode.Nl, r) || unicode.Is(unicode.Pc, r) || r == 0x200C || r == 0x200D
}

func endsWithWord(s string) bool {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i]&0xC0 != 0x80 { // start of the last rune
			r, _ := decodeRune(s, i)
			return isWord(r)
		}
	}
	return false
}

func startsWithWord(s string) bool {
	r, w := decodeRune(s, 0)
	return w > 0 && isWord(r)
}

// trailingSpaceStart returns where the whitespace at the end of s begins.
func trailingSpaceStart(s string) int {
	end := len(s)
	for end > 0 {
		i := end - 1
		for i > 0 && s[i]&0xC0 == 0x80 {
			i--
		}
		r, _ := decodeRune(s, i)
		if !isSpace(r) {
			break
		}
		end = i
	}
	return end
}

// leadingSpaceLen returns the byte length of the whitespace s starts with.
func leadingSpaceLen(s string) int {
	i := 0
	for i < len(s) {
		r, w := decodeRune(s, i)
		if !isSpace(r) {
			break
		}
		i += w
	}
	return i
}
