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

// TestForcedTokensAreTheSchemasNotThePolicys: in a drawn directive, the
// tokens the mask left alone (the JSON around the fields, an agent's name
// once its first letter tells it apart, the end token) are forced, and
// the letter that picks the agent and the free text of action and tone
// are not; the loss trains only on those.
func TestForcedTokensAreTheSchemasNotThePolicys(t *testing.T) {
	tk := tok{tokenizer.NewByteLevel()}
	roster := dialogue.Roster{{Name: "The Anchor"}, {Name: "The Catalyst"}, {Name: "The Beacon"}}
	g := newGrammar(tk, tokenizer.ByteLevelVocabSize)
	schema := dialogue.DirectiveSchema(roster)
	// The schema's properties in its order (the machine's): action, agent, tone.
	doc := `{"action":"ask","agent":"The Beacon","tone":"calm"}`
	ids := append(tk.Encode(doc), tk.EOS())
	forced, err := g.forced(schema, 64, ids)
	if err != nil {
		t.Fatal(err)
	}
	var free strings.Builder
	for i, f := range forced {
		if !f && ids[i] != tk.EOS() {
			free.WriteString(tk.Decode(ids[i : i+1]))
		}
	}
	// The fields' words, the agent's first letter after "The "; the quotes
	// that end action and tone are choices too (a longer text was
	// possible), the rest of the document is forced.
	if got, want := free.String(), `ask"`+`B`+`calm"`; got != want {
		t.Errorf("free tokens %q, want %q (forced: %v)", got, want, forced)
	}
	if !forced[len(forced)-1] {
		t.Error("the end token of a complete directive is not forced")
	}
}

// TestDirectorLossTrainsTheChoicesOnly: the GRPO episode of a drawn
// directive gives loss to the tokens the policy chose and to nothing the
// schema forced or the prompt held. With every token trained, the ~40
// forced tokens' advantage-weighted gradients drowned the one letter
// that picks the agent: a reward for one agent was not learned in 40
// steps, and is within 11 once they are left out (the demo's fix).
func TestDirectorLossTrainsTheChoicesOnly(t *testing.T) {
	tk := tok{tokenizer.NewByteLevel()}
	roster := dialogue.Roster{{Name: "The Anchor"}, {Name: "The Catalyst"}, {Name: "The Beacon"}}
	c := &policyChat{tok: tk, grammar: newGrammar(tk, tokenizer.ByteLevelVocabSize), maxTokens: 64}
	doc := `{"action":"ask","agent":"The Beacon","tone":"calm"}`
	completion := append(tk.Encode(doc), tk.EOS())
	prompt := tk.Encode("the Director's prompt")
	d := dialogue.Draw{Key: "unit|director", Choice: 1}
	if err := c.keep(d, prompt, completion, dialogue.DirectiveSchema(roster)); err != nil {
		t.Fatal(err)
	}
	ep, err := (&rollouts{tok: tk}).episode(c, nil, dialogue.Rollout{DirectiveOutput: doc, Drawn: d}, 1)
	if err != nil {
		t.Fatal(err)
	}
	var trained strings.Builder
	for i, on := range ep.Trainable {
		if on {
			if i < len(prompt) {
				t.Fatalf("prompt token %d is trained", i)
			}
			trained.WriteString(tk.Decode(ep.IDs[i : i+1]))
		}
	}
	if got, want := trained.String(), `ask"Bcalm"`; got != want {
		t.Errorf("trained tokens %q, want %q", got, want)
	}
	// A draw kept without a schema (nothing constrained it) trains all
	// its tokens.
	if err := c.keep(d, prompt, completion, nil); err != nil {
		t.Fatal(err)
	}
	ep, _ = (&rollouts{tok: tk}).episode(c, nil, dialogue.Rollout{DirectiveOutput: doc, Drawn: d}, 1)
	n := 0
	for _, on := range ep.Trainable {
		if on {
			n++
		}
	}
	if n != len(completion) {
		t.Errorf("%d tokens trained without a schema, want all %d", n, len(completion))
	}
}
