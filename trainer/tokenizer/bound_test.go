package tokenizer

import (
	"strings"
	"testing"
)

// TestMaxBytesPerTokenBoundsEncode: no text is longer than its token count
// times MaxBytesPerToken, for the byte-level tokenizer, a BPE with long
// merges and an NFC-normalizing one fed decomposed Hangul (which NFC
// shrinks threefold); a tokenizer missing a byte has no bound.
func TestMaxBytesPerTokenBoundsEncode(t *testing.T) {
	r := func(s string) string { return byteLevel(s) }
	merges := [][2]string{{r("a"), r("a")}, {r("aa"), r("aa")}, {r("aaaa"), r("aaaa")}}
	texts := []string{"", "a", strings.Repeat("a", 1000), "<|im_start|>user\nhi<|im_end|>", "\u1100\u1161\u11a8" + strings.Repeat("\u1100\u1161\u11a8", 50), "é ü ñ 日本語"}
	for _, c := range []struct {
		name string
		tok  *Tokenizer
		want int
	}{
		{"byte level", NewByteLevel(), len("<|object_ref_start|>")},
		{"merges", mustParse(t, tinyJSON(t, merges, nil, true, "null")), 8},
		{"nfc", mustParse(t, tinyJSON(t, nil, nil, true, `{"type":"NFC"}`)), 3},
	} {
		if got := c.tok.MaxBytesPerToken(); got != c.want {
			t.Errorf("%s: MaxBytesPerToken %d, want %d", c.name, got, c.want)
		}
		for _, s := range texts {
			if n := len(c.tok.Encode(s)); len(s) > n*c.tok.MaxBytesPerToken() {
				t.Errorf("%s: %d bytes encode to %d tokens, over the bound %d per token", c.name, len(s), n, c.tok.MaxBytesPerToken())
			}
		}
	}
	tok := NewByteLevel()
	tok.model.byteIDs['x'] = -1
	if tok.bytesPerTokenBound() != 0 {
		t.Error("a tokenizer without a token for byte x claims a bound")
	}
}
