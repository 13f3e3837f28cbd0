package train

import (
	"math/rand/v2"
	"strings"
	"testing"

	"mascot.dev/mascot/runner/dialogue"
	"mascot.dev/mascot/trainer/tokenizer"
)

// TestGrammarDrawsParseableDirectives: under the grammar's mask, draws
// from random logits end in a directive naming a roster agent, within the
// token budget; a budget that cannot hold the shortest directive is
// refused.
func TestGrammarDrawsParseableDirectives(t *testing.T) {
	tk := tok{tokenizer.NewByteLevel()}
	roster := dialogue.Roster{{Name: "The Anchor"}, {Name: "The Catalyst"}, {Name: "The Beacon"}}
	g := newGrammar(tk, tokenizer.ByteLevelVocabSize)
	schema := dialogue.DirectiveSchema(roster)
	if _, err := g.processor(schema, 8); err == nil || !strings.Contains(err.Error(), "too small") {
		t.Fatalf("a budget of 8 tokens was accepted (%v)", err)
	}
	const budget = 64
	proc, err := g.processor(schema, budget)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for trial := range 20 {
		var out []int
		for len(out) < budget {
			logits := make([]float32, tokenizer.ByteLevelVocabSize)
			for i := range logits {
				logits[i] = float32(r.NormFloat64())
			}
			proc(len(out), out, logits)
			best := 0
			for i, v := range logits {
				if v > logits[best] {
					best = i
				}
			}
			out = append(out, best)
			if best == tk.EOS() {
				break
			}
		}
		if out[len(out)-1] != tk.EOS() {
			t.Fatalf("trial %d: no end token within %d tokens: %q", trial, budget, tk.Decode(out))
		}
		text := tk.Decode(out[:len(out)-1])
		if _, err := dialogue.ParseDirective(text, roster); err != nil {
			t.Fatalf("trial %d: %q does not parse: %v", trial, text, err)
		}
	}
}
