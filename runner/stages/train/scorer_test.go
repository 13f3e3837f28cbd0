package train

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"mascot.dev/mascot/internal/qwen3tok"
	"mascot.dev/mascot/internal/testgate"
	"mascot.dev/mascot/trainer/qwen3"
	"mascot.dev/mascot/trainer/serve"
	"mascot.dev/mascot/trainer/train"
)

// The reward model is scored on the tokens it was trained on: the runner's
// scorer feeds train.EncodeScored's ids (prompt and completion encoded
// apart, EOS appended), which with the real Qwen3 tokenizer differ from
// encoding prompt+completion as one string when the prompt ends in a
// space (BPE merges " cats" across the seam), the scorer's old input.
func TestRewardModelScoredOnTrainingTokens(t *testing.T) {
	tokDir, err := qwen3tok.Dir()
	if err != nil {
		testgate.Need(t, false, err.Error())
	}
	dir := t.TempDir()
	for _, f := range []string{"tokenizer.json", "tokenizer_config.json"} {
		b, err := os.ReadFile(filepath.Join(tokDir, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	pad := 151643
	cfg := qwen3.Config{Architectures: []string{qwen3.SequenceClassification}, ModelType: "qwen3", VocabSize: 151669,
		HiddenSize: 16, IntermediateSize: 32, NumHiddenLayers: 1, NumAttentionHeads: 2, NumKeyValueHeads: 1, HeadDim: 8,
		HiddenAct: "silu", RMSNormEps: 1e-6, RopeTheta: 1e6, NumLabels: 1, PadTokenID: &pad, EOSTokenID: 151645}
	m, err := qwen3.NewRandom(cfg, 3)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Save(dir); err != nil {
		t.Fatal(err)
	}
	tk, err := serve.LoadTokenizer(dir)
	if err != nil {
		t.Fatal(err)
	}
	prompt, completion := "Tell me about ", "cats and dogs"
	trained, _ := train.EncodeScored(tok{tk}, prompt, completion, 0)
	joined := append(tk.Encode(prompt+completion), tk.Specials().EOS)
	if slices.Equal(trained, joined) {
		t.Fatalf("the two tokenisations agree (%v): the test would not tell them apart", trained)
	}
	want, err := m.Score(trained)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := loadScorer(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	got, err := sc(context.Background(), prompt, completion)
	if err != nil {
		t.Fatal(err)
	}
	if got != float64(want[0]) {
		t.Fatalf("scorer gives %v, the reward model on its training tokens %v", got, want[0])
	}

	// A reward model trained with max_prompt_length is scored on prompts
	// cut the same way: the last tokens of the prompt, then the completion.
	cut, np := train.EncodeScored(tok{tk}, prompt, completion, 2)
	if np != 2 || !slices.Equal(cut[:2], tk.Encode(prompt)[len(tk.Encode(prompt))-2:]) {
		t.Fatalf("EncodeScored with max prompt 2 kept %d prompt tokens %v, want the prompt's last 2", np, cut[:np])
	}
	wantCut, err := m.Score(cut)
	if err != nil {
		t.Fatal(err)
	}
	sc2, err := loadScorer(dir, 2)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := sc2(context.Background(), prompt, completion); err != nil || got != float64(wantCut[0]) || got == float64(want[0]) {
		t.Fatalf("scorer with max prompt 2 gives %v (%v), want %v (and not the whole prompt's %v)", got, err, wantCut[0], want[0])
	}
}
