package tokenizer

import (
	"path/filepath"
	"slices"
	"testing"
)

func TestByteLevelLayout(t *testing.T) {
	tok := NewByteLevel()
	if tok.VocabSize() != ByteLevelVocabSize {
		t.Fatalf("VocabSize = %d, want %d", tok.VocabSize(), ByteLevelVocabSize)
	}
	want := SpecialIDs{EOS: 258, Pad: 256, EndOfText: 256, IMStart: 257, IMEnd: 258, Think: 280, EndThink: 281}
	if got := tok.Specials(); got != want {
		t.Errorf("Specials = %+v, want %+v", got, want)
	}
	if got := tok.Encode("A\n"); !slices.Equal(got, []int{'A', '\n'}) {
		t.Errorf("Encode(A\\n) = %v", got)
	}
	if s, ok := tok.IDToToken(' '); !ok || s != "Ġ" {
		t.Errorf("IDToToken(space) = %q, %v", s, ok)
	}
	if id, ok := tok.TokenToID("<think>"); !ok || id != 280 {
		t.Errorf("TokenToID(<think>) = %d, %v", id, ok)
	}
	if tok.IsSpecial(280) || !tok.IsSpecial(258) {
		t.Error("<think> must not be special, <|im_end|> must be")
	}
}

// TestSaveLoadRoundTrip: Save then Load gives a tokenizer encoding the
// corpus identically, for both the byte-level and a merged vocabulary.
func TestSaveLoadRoundTrip(t *testing.T) {
	merged := mustParse(t, tinyJSON(t, [][2]string{{"t", "h"}, {"th", "e"}, {"Ġ", "the"}}, []AddedToken{{ID: 400, Content: "<x>", Special: true}}, false, `{"type":"NFC"}`))
	for name, tok := range map[string]*Tokenizer{"byte-level": NewByteLevel(), "merged": merged} {
		path := filepath.Join(t.TempDir(), "tokenizer.json")
		if err := tok.Save(path); err != nil {
			t.Fatal(err)
		}
		back, err := Load(path)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, s := range append(slices.Clone(trickyStrings), "the the<x>", "cafe\u0301") {
			if a, b := tok.Encode(s), back.Encode(s); !slices.Equal(a, b) {
				t.Fatalf("%s: Encode(%q) %v after reload %v", name, s, a, b)
			}
		}
	}
}
