package tokenizer

import (
	"math/rand/v2"
	"strings"
)

// trickyStrings are hand-picked inputs for the pre-tokenizer's edge cases.
var trickyStrings = []string{
	"", " ", "  ", "   ", "\n", "\n\n", "\n\n\n", "\r\n", "\r\n\r\n", "\t", "\t\t", " \t ",
	"   a", "a   ", "a   b", "a\n\nb", "x  \n", "x \n y", "  \n  x", "\n  \n", " \n\n ", "a \t\nb",
	"hello world", "Hello World!", "HELLO", "hello,world", "hello ,world", "a.b.c", "end.\n\nNext",
	"It's", "it's", "IT'S", "I'm", "I'M", "you're", "YOU'RE", "we've", "We'Ve", "she'll", "SHE'LL",
	"he'd", "HE'D", "don't", "DON'T", "'s", "'S", "'t", "'re", "'ve", "'m", "'ll", "'d", "'x", "''s",
	"rock'n'roll", "o'clock", "'sup", "y'all'd've", " 's", "'", "''", "' s",
	"0", "7", "42", "12345", "3.14159", "1,000,000", "v1.2.3", "x2", "2x", "H2O", "٣٤٥", "²³", "ⅫⅣ", "½",
	"!", "!!", "?!", "...", "…", "--", "->", "=>", "==", "!==", "(a)", "[1, 2]", "{\"k\": \"v\"}",
	" .", " ..", " !\n", "!\n\n", "?\r\n", " )\n\n\nx", "#include <stdio.h>\n", "@user", "#tag", "$100", "50%",
	"你好", "你好，世界！", "我爱北京天安门。", "中文 English 混合", "日本語のテキスト", "カタカナ", "한국어 텍스트",
	"😀", "😀😀", "👍🏽", "👨‍👩‍👧‍👦", "🇯🇵🇺🇸", "❤️", "I ❤ Go", " 😀", "a😀b",
	"Привет, мир!", "Ελληνικά", "مرحبا بالعالم", "שלום עולם", "नमस्ते दुनिया", "สวัสดีครับ", "Tiếng Việt",
	"café", "cafe\u0301", "naïve", "Å", "\u212B", "e\u0301\u0301", "ﬁle", "Ǆ", "ß", "ẞ",
	"\u00a0", "a\u00a0b", "\u3000", "a\u3000\u3000b", "\u2009x", "\u2028", "\u2029", "\v", "\f", "\u200b",
	"<|im_start|>", "<|im_end|>", "<|endoftext|>", "<think>", "</think>", "<think></think>",
	"<|im_start|>user\nhi<|im_end|>\n", "<think>\n\n</think>\n\n", "x<think>y", " <think> ",
	"<|im_start", "im_end|>", "<thinking>", "</think", "<<think>>", "<|im_start|><|im_end|>",
	"<tool_call>\n{\"name\": \"f\"}\n</tool_call>", "<|fim_prefix|>a<|fim_suffix|>b<|fim_middle|>",
	"<|vision_start|><|image_pad|><|vision_end|>", "<tool_response>ok</tool_response>",
	"func main() {\n\tfmt.Println(\"hi\")\n}\n", "def f(x):\n    return x ** 2\n\n\n",
	"    indented\n        more\n", "a\r\nb\rc\nd", "trailing   ", "   leading", "\n\n\nx\n\n\n",
	strings.Repeat(" ", 40), strings.Repeat("\n", 17), strings.Repeat("a", 300), strings.Repeat("你", 200),
	strings.Repeat("ab ", 100), strings.Repeat("😀", 30), strings.Repeat("-", 64), strings.Repeat("=+", 50),
}

// corpusPieces are the building blocks of the generated strings.
var corpusPieces = [][]string{
	{"the", "The", "THE", "quick", "Brown", "fox", "jumps", "über", "naïve", "Straße", "x", "I", "a"},
	{"'s", "'t", "'re", "'ve", "'m", "'ll", "'d", "'S", "'T", "'RE", "'Ve", "'M", "'LL", "'D", "'", "'x"},
	{" ", "  ", "   ", "\t", "\n", "\n\n", "\r\n", " \n", "\n ", "\u00a0", "\u3000", "\u2003", "\v", "\f", " \t\n"},
	{"0", "1", "42", "2024", "3.5", "1,000", "٣", "²", "Ⅻ", "๓", "10%", "-7"},
	{".", ",", "!", "?", ";", ":", "...", "--", "(", ")", "[", "]", "{", "}", "\"", "'", "`", "@", "#", "$",
		"%", "^", "&", "*", "->", "==", "//", "/*", "*/", "¿", "«", "»", "。", "，", "、", "！", "？", "・", "—", "’"},
	{"你好", "世界", "中文", "分词器", "天气", "日本語", "ひらがな", "カタカナ", "한국어", "문장"},
	{"😀", "👍", "👍🏽", "👨‍👩‍👧", "🇯🇵", "❤️", "✨", "🚀", "🙂"},
	{"Привет", "мир", "Ελλάδα", "مرحبا", "שלום", "नमस्ते", "ไทย", "Việt", "café", "cafe\u0301", "ﬁ", "Å", "\u212B"},
	{"<|im_start|>", "<|im_end|>", "<|endoftext|>", "<think>", "</think>", "<tool_call>", "</tool_call>",
		"<tool_response>", "<|im_start", "<thinking>", "</think", "<|fim_pad|>"},
}

// randomRanges are code point ranges from long-stable Unicode blocks,
// avoiding U+0085, U+FEFF and U+017F, on which the JavaScript oracle's
// regex engine differs from the Rust one (see doc.go).
var randomRanges = [][2]rune{
	{0x20, 0x7E}, {0xA0, 0x17E}, {0x391, 0x3C9}, {0x410, 0x44F}, {0x4E00, 0x9FA5}, {0x3041, 0x3096},
	{0x30A1, 0x30FA}, {0xAC00, 0xD7A3}, {0x2000, 0x2027}, {0x2030, 0x205E}, {0x1F600, 0x1F64F},
	{0x905, 0x939}, {0x93E, 0x94D}, {0x621, 0x64A}, {0x660, 0x669}, {0xE01, 0xE3A}, {0x300, 0x36F},
}

// randomString builds one test string from pieces and random characters.
func randomString(r *rand.Rand) string {
	var b strings.Builder
	n := 1 + r.IntN(12)
	for range n {
		if r.IntN(5) == 0 {
			rg := randomRanges[r.IntN(len(randomRanges))]
			for k := 1 + r.IntN(4); k > 0; k-- {
				b.WriteRune(rg[0] + rune(r.IntN(int(rg[1]-rg[0]+1))))
			}
			continue
		}
		group := corpusPieces[r.IntN(len(corpusPieces))]
		b.WriteString(group[r.IntN(len(group))])
	}
	return b.String()
}

// randomStrings returns n deterministic strings for a seed.
func randomStrings(seed uint64, n int) []string {
	r := rand.New(rand.NewPCG(seed, 0x6d6173636f74))
	out := make([]string, n)
	for i := range out {
		out[i] = randomString(r)
	}
	return out
}
