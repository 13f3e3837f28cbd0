package tokenizer

import (
	"unicode"
	"unicode/utf8"
)

// Qwen2Pattern is the Split regex of the Qwen2/Qwen3 pre-tokenizer, exactly as
// it appears in tokenizer.json. splitQwen2 implements it by hand.
const Qwen2Pattern = `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`

// splitQwen2 cuts s into the pieces the Qwen2 pattern produces with
// behaviour "Isolated" and calls emit for each, in order. Every byte of s
// lands in exactly one piece: the pattern matches at every position, so there
// are no gaps. Invalid UTF-8 bytes count as one-byte symbols.
func splitQwen2(s string, emit func(piece string)) {
	for i := 0; i < len(s); {
		n := matchQwen2(s, i)
		emit(s[i : i+n])
		i += n
	}
}

// matchQwen2 returns the byte length of the leftmost-first match of
// Qwen2Pattern at s[i:]; it is always at least one character.
func matchQwen2(s string, i int) int {
	r0, w0 := decodeRune(s, i)

	// (?i:'s|'t|'re|'ve|'m|'ll|'d)
	if r0 == '\'' {
		if n := contraction(s, i+1); n > 0 {
			return 1 + n
		}
	}
	// [^\r\n\p{L}\p{N}]?\p{L}+
	if isLetter(r0) {
		return letterRun(s, i) - i
	}
	if r0 != '\r' && r0 != '\n' && !isNumber(r0) && i+w0 < len(s) {
		if r1, _ := decodeRune(s, i+w0); isLetter(r1) {
			return letterRun(s, i+w0) - i
		}
	}
	// \p{N}
	if isNumber(r0) {
		return w0
	}
	// ` ?[^\s\p{L}\p{N}]+[\r\n]*`
	j := i
	if r0 == ' ' {
		j++
	}
	if k := symbolRun(s, j); k > j {
		for k < len(s) && (s[k] == '\r' || s[k] == '\n') {
			k++
		}
		return k - i
	}
	if !isSpace(r0) {
		return w0 // unreachable: every non-space rune matched above
	}
	// Whitespace run [i, end); lastNL is the start of its last \r or \n,
	// last the start of its last rune.
	end, lastNL, last := i, -1, i
	for end < len(s) {
		r, w := decodeRune(s, end)
		if !isSpace(r) {
			break
		}
		if r == '\r' || r == '\n' {
			lastNL = end
		}
		last = end
		end += w
	}
	// \s*[\r\n]+ : ends right after the run's last newline.
	if lastNL >= 0 {
		return lastNL + 1 - i
	}
	// \s+(?!\S) : the whole run at the end of text, else all but its last
	// character when that leaves at least one.
	if end == len(s) {
		return end - i
	}
	if last > i {
		return last - i
	}
	// \s+
	return end - i
}

// contraction matches the tail of (?i:'s|'t|'re|'ve|'m|'ll|'d) after the
// apostrophe and returns its byte length, or 0.
func contraction(s string, i int) int {
	r1, w1 := decodeRune(s, i)
	if i >= len(s) {
		return 0
	}
	switch {
	case foldEq(r1, 's'), foldEq(r1, 't'), foldEq(r1, 'm'), foldEq(r1, 'd'):
		return w1
	}
	if i+w1 >= len(s) {
		return 0
	}
	r2, w2 := decodeRune(s, i+w1)
	switch {
	case foldEq(r1, 'r') && foldEq(r2, 'e'),
		foldEq(r1, 'v') && foldEq(r2, 'e'),
		foldEq(r1, 'l') && foldEq(r2, 'l'):
		return w1 + w2
	}
	return 0
}

// foldEq reports whether r equals the lower-case ASCII letter c under Unicode
// simple case folding, as (?i) does in the Rust and Oniguruma engines.
func foldEq(r, c rune) bool {
	if r == c {
		return true
	}
	for f := unicode.SimpleFold(c); f != c; f = unicode.SimpleFold(f) {
		if r == f {
			return true
		}
	}
	return false
}

// letterRun returns the end of the run of letters starting at i.
func letterRun(s string, i int) int {
	for i < len(s) {
		r, w := decodeRune(s, i)
		if !isLetter(r) {
			break
		}
		i += w
	}
	return i
}

// symbolRun returns the end of the run of [^\s\p{L}\p{N}] starting at i.
func symbolRun(s string, i int) int {
	for i < len(s) {
		r, w := decodeRune(s, i)
		if isSpace(r) || isLetter(r) || isNumber(r) {
			break
		}
		i += w
	}
	return i
}

// decodeRune decodes the rune at s[i]; past the end it returns (-1, 0).
func decodeRune(s string, i int) (rune, int) {
	if i >= len(s) {
		return -1, 0
	}
	if c := s[i]; c < utf8.RuneSelf {
		return rune(c), 1
	}
	return utf8.DecodeRuneInString(s[i:])
}

// isLetter is \p{L}.
func isLetter(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z'
	}
	return unicode.IsLetter(r)
}

// isNumber is \p{N}.
func isNumber(r rune) bool {
	if r < utf8.RuneSelf {
		return '0' <= r && r <= '9'
	}
	return unicode.IsNumber(r)
}

// isSpace is \s: the Unicode White_Space property.
func isSpace(r rune) bool {
	if r < utf8.RuneSelf {
		return r == ' ' || '\t' <= r && r <= '\r'
	}
	return unicode.IsSpace(r)
}
