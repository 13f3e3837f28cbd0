package tokenizer

import (
	"slices"
	"strings"
	"testing"
)

func pieces(s string) []string {
	var out []string
	splitQwen2(s, func(p string) { out = append(out, p) })
	return out
}

// TestSplitQwen2 pins the regex semantics piece by piece, including the
// `\s+(?!\S)` backtracking and the Unicode choices where the JavaScript
// oracle differs (U+0085 is whitespace, 'ſ is a contraction).
func TestSplitQwen2(t *testing.T) {
	cases := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"hello world", []string{"hello", " world"}},
		{"   a", []string{"  ", " a"}},
		{"a  b", []string{"a", " ", " b"}},
		{"trailing   ", []string{"trailing", "   "}},
		{"x  \n", []string{"x", "  \n"}},
		{"x \n y", []string{"x", " \n", " y"}},
		{"a\n\nb", []string{"a", "\n\n", "b"}},
		{"a\n \nb", []string{"a", "\n \n", "b"}},
		{"a\n  b", []string{"a", "\n", " ", " b"}},
		{"\t\tx", []string{"\t", "\tx"}},
		{"It's", []string{"It", "'s"}},
		{"IT'S", []string{"IT", "'S"}},
		{"we'Ve", []string{"we", "'Ve"}},
		{"don't", []string{"don", "'t"}},
		{"y'all", []string{"y", "'all"}},
		{"'ſx", []string{"'ſ", "x"}},
		{"123", []string{"1", "2", "3"}},
		{"$100", []string{"$", "1", "0", "0"}},
		{"x2y", []string{"x", "2", "y"}},
		{" !!\n\nx", []string{" !!\n\n", "x"}},
		{"end.\n\nNext", []string{"end", ".\n\n", "Next"}},
		{" . .", []string{" .", " ."}},
		{"(a)", []string{"(a", ")"}},
		{"你好世界", []string{"你好世界"}},
		{"你好，世界！", []string{"你好", "，世界", "！"}},
		{"a\u00a0b", []string{"a", "\u00a0b"}},
		{"a\u0085\u0085b", []string{"a", "\u0085", "\u0085b"}},
		{"😀😀 x", []string{"😀😀", " x"}},
		{"\xff\xfeab", []string{"\xff\xfe", "ab"}},
		{"\xffab", []string{"\xffab"}},
	}
	for _, c := range cases {
		if got := pieces(c.in); !slices.Equal(got, c.want) {
			t.Errorf("split(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestSplitQwen2Covers checks that pieces are non-empty and concatenate to
// the input on the whole corpus.
func TestSplitQwen2Covers(t *testing.T) {
	for _, s := range append(slices.Clone(trickyStrings), randomStrings(9, 500)...) {
		ps := pieces(s)
		for _, p := range ps {
			if p == "" {
				t.Fatalf("empty piece in %q", s)
			}
		}
		if strings.Join(ps, "") != s {
			t.Fatalf("pieces of %q do not concatenate back: %q", s, ps)
		}
	}
}
