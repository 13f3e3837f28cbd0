package train

import (
	"context"
	"strings"
	"testing"

	"mascot.dev/mascot/llm"
	"mascot.dev/mascot/runner/dialogue"
	"mascot.dev/mascot/trainer/qwen3"
	"mascot.dev/mascot/trainer/sample"
	"mascot.dev/mascot/trainer/tokenizer"
	"mascot.dev/mascot/trainer/train"
)

// TestPolicyTruncatesThePromptAsItsEndpointWould: a Director request that
// asks for truncate_prompt_tokens is drawn by the in-process policy from
// the prompt's last tokens, as the endpoint serving the Director would
// draw it, and the GRPO episode trains on that cut prompt.
func TestPolicyTruncatesThePromptAsItsEndpointWould(t *testing.T) {
	m, err := qwen3.NewRandom(qwen3.Tiny(), 5)
	if err != nil {
		t.Fatal(err)
	}
	tk := tok{tokenizer.NewByteLevel()}
	roster := dialogue.Roster{{Name: "The Anchor"}, {Name: "The Beacon"}}
	c := &policyChat{tok: tk, grammar: newGrammar(tk, m.Config.VocabSize), temperature: 1, maxTokens: 64,
		policy: &train.Policy{Model: m, Params: sample.Params{StopTokens: []int{tk.EOS()}}}}
	seed, k := 9, 40
	req := llm.Request{Role: dialogue.RoleDirector, CacheKey: "unit|director", Seed: &seed, TruncatePromptTokens: &k,
		Messages:   []llm.Message{{Role: "user", Content: strings.Repeat("a long conversation so far. ", 10)}},
		JSONSchema: dialogue.DirectiveSchema(roster), SchemaName: "directive"}
	resp, err := c.Chat(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.PromptTokens != k {
		t.Fatalf("the policy drew from %d prompt tokens, want the last %d", resp.PromptTokens, k)
	}
	if _, err := dialogue.ParseDirective(resp.Text(), roster); err != nil {
		t.Fatalf("directive %q: %v", resp.Text(), err)
	}
	kept, ok := c.tokens(dialogue.Draw{Key: req.CacheKey})
	if !ok || len(kept.prompt) != k {
		t.Fatalf("the episode keeps %d prompt tokens (found %v), want %d", len(kept.prompt), ok, k)
	}
	full, _ := c.encode(req.Messages, nil)
	if got, want := tk.Decode(kept.prompt), tk.Decode(full[len(full)-k:]); got != want {
		t.Fatalf("kept prompt %q, want the last %d tokens %q", got, k, want)
	}
}
