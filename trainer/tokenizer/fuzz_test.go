package tokenizer

import (
	"slices"
	"strings"
	"testing"

	"golang.org/x/text/unicode/norm"
)

// Fuzz targets; each runs clean for a minute:
//
//	go test ./trainer/tokenizer -run '^$' -fuzz '^FuzzQwen3Encode$' -fuzztime 1m
//	go test ./trainer/tokenizer -run '^$' -fuzz '^FuzzByteLevelRoundTrip$' -fuzztime 1m
//	go test ./trainer/tokenizer -run '^$' -fuzz '^FuzzSplitQwen2$' -fuzztime 1m

func addSeeds(f *testing.F) {
	for _, s := range trickyStrings {
		f.Add(s)
	}
	f.Add("\xff\xfe<|im_end|>\xe2\x82")
	f.Add("<think>\u0338e\u0301")
}

// FuzzQwen3Encode: on the real Qwen3 vocabulary, Encode never panics, is
// deterministic (the word cache changes nothing), yields only known ids,
// and decodes back to the input with added tokens kept verbatim and the text
// between them in NFC. The expectation is computed by a plain scan,
// independent of the tokenizer's matcher.
func FuzzQwen3Encode(f *testing.F) {
	tok := qwen3(f)
	var contents []string
	for _, a := range tok.AddedTokens() {
		contents = append(contents, a.Content)
	}
	addSeeds(f)
	f.Fuzz(func(t *testing.T, s string) {
		ids := tok.Encode(s)
		for _, id := range ids {
			if _, ok := tok.IDToToken(id); !ok {
				t.Fatalf("Encode(%q) produced unknown id %d", s, id)
			}
		}
		if again := tok.Encode(s); !slices.Equal(ids, again) {
			t.Fatalf("Encode(%q) not deterministic: %v then %v", s, ids, again)
		}
		want := expectedRoundTrip(s, contents)
		if got := string(tok.DecodeBytes(ids)); got != want {
			t.Fatalf("DecodeBytes(Encode(%q)) = %q, want %q", s, got, want)
		}
		if got := tok.Decode(ids); got != lossyUTF8([]byte(want)) {
			t.Fatalf("Decode(Encode(%q)) = %q", s, got)
		}
	})
}

// FuzzByteLevelRoundTrip: the demo tokenizer reproduces any byte string.
func FuzzByteLevelRoundTrip(f *testing.F) {
	tok := NewByteLevel()
	addSeeds(f)
	f.Fuzz(func(t *testing.T, s string) {
		ids := tok.Encode(s)
		if got := string(tok.DecodeBytes(ids)); got != s {
			t.Fatalf("DecodeBytes(Encode(%q)) = %q", s, got)
		}
		for _, id := range ids {
			if id < 0 || id >= ByteLevelVocabSize {
				t.Fatalf("id %d out of range", id)
			}
		}
	})
}

// FuzzSplitQwen2: the scanner never panics or loops, and its pieces are
// non-empty and cover the input in order.
func FuzzSplitQwen2(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, s string) {
		var b strings.Builder
		splitQwen2(s, func(p string) {
			if p == "" {
				t.Fatalf("empty piece in %q", s)
			}
			b.WriteString(p)
		})
		if b.String() != s {
			t.Fatalf("pieces of %q concatenate to %q", s, b.String())
		}
	})
}

// expectedRoundTrip is s with added tokens kept as they are (leftmost,
// longest) and NFC applied to the text between them.
func expectedRoundTrip(s string, contents []string) string {
	var b strings.Builder
	start := 0
	for i := 0; i < len(s); {
		best := ""
		for _, c := range contents {
			if strings.HasPrefix(s[i:], c) && len(c) > len(best) {
				best = c
			}
		}
		if best == "" {
			i++
			continue
		}
		b.WriteString(norm.NFC.String(s[start:i]))
		b.WriteString(best)
		i += len(best)
		start = i
	}
	b.WriteString(norm.NFC.String(s[start:]))
	return b.String()
}
