package tokenizer

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// tinyJSON builds a tokenizer.json with the 256 byte tokens, the merged
// tokens of merges and the given added tokens. pairs selects the
// ["a","b"] serialisation of merges, otherwise "a b".
func tinyJSON(t testing.TB, merges [][2]string, added []AddedToken, pairs bool, normalizer string) []byte {
	t.Helper()
	vocab := map[string]int{}
	for b := range 256 {
		vocab[string(byteToRune[b])] = b
	}
	var ms []any
	for _, m := range merges {
		if _, ok := vocab[m[0]+m[1]]; !ok {
			vocab[m[0]+m[1]] = len(vocab)
		}
		if pairs {
			ms = append(ms, []string{m[0], m[1]})
		} else {
			ms = append(ms, m[0]+" "+m[1])
		}
	}
	if added == nil {
		added = []AddedToken{}
	}
	bl := map[string]any{"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": false, "use_regex": false}
	f := map[string]any{
		"added_tokens": added,
		"normalizer":   json.RawMessage(normalizer),
		"pre_tokenizer": map[string]any{"type": "Sequence", "pretokenizers": []any{
			map[string]any{"type": "Split", "pattern": map[string]string{"Regex": Qwen2Pattern}, "behavior": "Isolated", "invert": false}, bl}},
		"post_processor": bl, "decoder": bl,
		"model": map[string]any{"type": "BPE", "vocab": vocab, "merges": ms},
	}
	data, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func mustParse(t testing.TB, data []byte) *Tokenizer {
	t.Helper()
	tok, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func spell(tok *Tokenizer, ids []int) []string {
	var out []string
	for _, id := range ids {
		s, _ := tok.IDToToken(id)
		out = append(out, s)
	}
	return out
}

func TestMergesBothSerialisations(t *testing.T) {
	merges := [][2]string{{"h", "e"}, {"l", "l"}, {"he", "ll"}, {"hell", "o"}, {"Ġ", "w"}, {"Ġw", "o"}}
	for _, pairs := range []bool{false, true} {
		tok := mustParse(t, tinyJSON(t, merges, nil, pairs, "null"))
		got := spell(tok, tok.Encode("hello wow"))
		if want := []string{"hello", "Ġwo", "w"}; !slices.Equal(got, want) {
			t.Errorf("pairs=%v: got %q, want %q", pairs, got, want)
		}
	}
}

// TestMergeRankOrder: the lower-ranked pair merges first, leftmost on ties.
func TestMergeRankOrder(t *testing.T) {
	ab := mustParse(t, tinyJSON(t, [][2]string{{"a", "b"}, {"b", "c"}}, nil, true, "null"))
	if got := spell(ab, ab.Encode("abc")); !slices.Equal(got, []string{"ab", "c"}) {
		t.Errorf("a b first: got %q", got)
	}
	bc := mustParse(t, tinyJSON(t, [][2]string{{"b", "c"}, {"a", "b"}}, nil, true, "null"))
	if got := spell(bc, bc.Encode("abc")); !slices.Equal(got, []string{"a", "bc"}) {
		t.Errorf("b c first: got %q", got)
	}
	aa := mustParse(t, tinyJSON(t, [][2]string{{"a", "a"}}, nil, true, "null"))
	if got := spell(aa, aa.Encode("aaaaa")); !slices.Equal(got, []string{"aa", "aa", "a"}) {
		t.Errorf("aaaaa: got %q", got)
	}
}

// TestAddedTokenFlags follows the tokenizers crate's find_matches.
func TestAddedTokenFlags(t *testing.T) {
	added := []AddedToken{
		{ID: 300, Content: "<mask>", LStrip: true, Special: true},
		{ID: 301, Content: "[R]", RStrip: true},
		{ID: 302, Content: "word", SingleWord: true},
		{ID: 303, Content: "é", Normalized: true},
		{ID: 304, Content: "<a>"},
		{ID: 305, Content: "<a><b>"},
	}
	tok := mustParse(t, tinyJSON(t, nil, added, true, `{"type":"NFC"}`))
	cases := []struct {
		in   string
		want string // Decode of each id, joined by "|"
	}{
		{"I a <mask> x", "I| |a|<mask>| |x"},
		{"[R]   y", "[R]|y"},
		{"a word b", "a| |word| |b"},
		{"swordfish", "s|w|o|r|d|f|i|s|h"},
		{"word_", "w|o|r|d|_"},
		{"cafe\u0301", "c|a|f|é"},
		{"<a><b><a>", "<a><b>|<a>"},
	}
	for _, c := range cases {
		var parts []string
		for _, id := range tok.Encode(c.in) {
			parts = append(parts, tok.Decode([]int{id}))
		}
		if got := strings.Join(parts, "|"); got != c.want {
			t.Errorf("Encode(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if !tok.IsSpecial(300) || tok.IsSpecial(301) {
		t.Error("IsSpecial does not follow the special flag")
	}
	ids := tok.Encode("x<mask>[R]")
	if got := tok.DecodeSkipSpecial(ids); got != "x[R]" {
		t.Errorf("DecodeSkipSpecial = %q, want %q", got, "x[R]")
	}
}

func TestParseRejects(t *testing.T) {
	good := string(tinyJSON(t, [][2]string{{"a", "b"}}, nil, false, "null"))
	cases := map[string]string{
		"not json":           `{`,
		"unigram":            strings.Replace(good, `"type":"BPE"`, `"type":"Unigram"`, 1),
		"byte fallback":      strings.Replace(good, `"type":"BPE"`, `"type":"BPE","byte_fallback":true`, 1),
		"other regex":        strings.Replace(good, `(?i:'s|'t|'re|'ve|'m|'ll|'d)|`, ``, 1),
		"use_regex":          strings.Replace(good, `"use_regex":false`, `"use_regex":true`, -1),
		"merge not in vocab": strings.Replace(good, `"merges":["a b"]`, `"merges":["a q"]`, 1),
		"bad merge":          strings.Replace(good, `"merges":["a b"]`, `"merges":["ab"]`, 1),
		"lowercase":          strings.Replace(good, `"normalizer":null`, `"normalizer":{"type":"Lowercase"}`, 1),
		"huge id":            strings.Replace(good, `"vocab":{`, `"vocab":{"xyz":99999999,`, 1),
	}
	for name, data := range cases {
		if data == good {
			t.Fatalf("%s: replacement did not apply", name)
		}
		if _, err := Parse([]byte(data)); err == nil {
			t.Errorf("%s: Parse accepted it", name)
		}
	}
}

func TestLoadReadsConfig(t *testing.T) {
	dir := t.TempDir()
	tok := NewByteLevel()
	if err := tok.Save(filepath.Join(dir, "tokenizer.json")); err != nil {
		t.Fatal(err)
	}
	cfg := `{"eos_token": {"content": "<|endoftext|>"}, "pad_token": "<|im_start|>"}`
	if err := os.WriteFile(filepath.Join(dir, "tokenizer_config.json"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if s := got.Specials(); s.EOS != 256 || s.Pad != 257 || s.IMEnd != 258 {
		t.Errorf("Specials = %+v", s)
	}
	if err := os.WriteFile(filepath.Join(dir, "tokenizer_config.json"), []byte(`{"eos_token": "<nope>"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(dir); err == nil {
		t.Error("Load accepted an eos_token missing from the vocabulary")
	}
}

func TestLossyUTF8(t *testing.T) {
	cases := map[string]string{
		"ok":             "ok",
		"\xe2\x82":       "\uFFFD",
		"\xe2\x82x":      "\uFFFDx",
		"\xff\xfe":       "\uFFFD\uFFFD",
		"\xf0\x9f\x98":   "\uFFFD",
		"\xed\xa0\x80":   "\uFFFD\uFFFD\uFFFD", // surrogate: E0..9F only after ED
		"\xc3\x28":       "\uFFFD(",
		"a\xf4\x90\x80b": "a\uFFFD\uFFFD\uFFFDb",
	}
	for in, want := range cases {
		if got := lossyUTF8([]byte(in)); got != want {
			t.Errorf("lossyUTF8(%q) = %q, want %q", in, got, want)
		}
	}
}
