package train

import (
	"context"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"mascot.dev/mascot/trainer/optim"
	"mascot.dev/mascot/trainer/pass"
)

// TestRewardModelAndDPOTrainWithoutDropout checks TRL's disable_dropout
// default for both: LoRA dropout 0.5 in the config trains the same weights
// as dropout 0 (it only stays in adapter_config.json's lora_dropout).
func TestRewardModelAndDPOTrainWithoutDropout(t *testing.T) {
	base := pretrainedBase(t)
	pairs := syntheticPairs(rand.New(rand.NewPCG(4, 4)), 16)
	run := func(kind string, dropout float64) Result {
		o := Options{Steps: 3, BatchSize: 4, Seed: 9, Optim: optim.Config{LR: 1e-2},
			LoRA: &pass.LoRAConfig{R: 4, Alpha: 8, Dropout: dropout}, OutputDir: filepath.Join(t.TempDir(), kind)}
		var res Result
		var err error
		if kind == "dpo" {
			res, err = TrainDPO(context.Background(), DPOJob{Options: o, Base: base, Tokenizer: charTok{}, Pairs: pairs})
		} else {
			res, err = TrainRewardModel(context.Background(), RMJob{Options: o, Base: base, Tokenizer: charTok{}, Pairs: pairs})
		}
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	for kind, weights := range map[string]string{"dpo": "adapter_model.safetensors", "rm": "model.safetensors"} {
		off, on := run(kind, 0), run(kind, 0.5)
		if off.Files[weights] == "" || off.Files[weights] != on.Files[weights] {
			t.Errorf("%s: %s differs between lora dropout 0 (%.12s) and 0.5 (%.12s); TRL trains it without dropout",
				kind, weights, off.Files[weights], on.Files[weights])
		}
	}
}

// TestDPOTruncatesOverLongPairs checks TRL's DPO truncation: a sequence
// longer than max_length keeps its first max_length tokens (truncation_mode
// keep_start) instead of dropping the pair; the reward model still drops.
func TestDPOTruncatesOverLongPairs(t *testing.T) {
	tok := charTok{}
	p := Pair{Prompt: "q:", Chosen: "the cat sat.", Rejected: "no."}
	kept := encodePairs(tok, []Pair{p}, 0, 6, keepStart)
	if len(kept) != 1 {
		t.Fatalf("keep_start kept %d pairs, want 1", len(kept))
	}
	wantC := append(tok.Encode("q:"), tok.Encode("the ")...)
	wantR := withEOS(append(tok.Encode("q:"), tok.Encode("no.")...), tok.EOS())
	if !slices.Equal(kept[0].chosen, wantC) || !slices.Equal(kept[0].rejected, wantR) || kept[0].start != 2 {
		t.Errorf("keep_start gave chosen %v rejected %v start %d, want %v %v 2", kept[0].chosen, kept[0].rejected, kept[0].start, wantC, wantR)
	}
	if got := encodePairs(tok, []Pair{p}, 0, 6, dropOverLong); len(got) != 0 {
		t.Errorf("the reward model kept an over-long pair: %v", got)
	}
	// Every pair is longer than max_length: DPO still trains on their
	// first 8 tokens.
	var steps int
	_, err := TrainDPO(context.Background(), DPOJob{
		Options: Options{Steps: 2, BatchSize: 4, Seed: 1, Optim: optim.Config{LR: 1e-2}, MaxLength: 8,
			LoRA: &pass.LoRAConfig{R: 4, Alpha: 8}, OutputDir: filepath.Join(t.TempDir(), "dpo"),
			OnStep: func(Metrics) { steps++ }},
		Base: pretrainedBase(t), Tokenizer: tok, Pairs: syntheticPairs(rand.New(rand.NewPCG(5, 5)), 8),
	})
	if err != nil || steps != 2 {
		t.Fatalf("DPO over pairs longer than max_length: %d steps, %v", steps, err)
	}
}

// TestRewardModelCutsPromptsToMaxPromptLength: with MaxPromptLength each
// prompt keeps its last tokens before the completion (and its EOS), so
// pairs whose whole prompt would not fit max_length still train.
func TestRewardModelCutsPromptsToMaxPromptLength(t *testing.T) {
	tok := charTok{}
	long := strings.Repeat("earlier turns ", 20) + "q:"
	p := Pair{Prompt: long, Chosen: "good.", Rejected: "bad."}
	cut := encodePairs(tok, []Pair{p}, 4, 12, dropOverLong)
	if len(cut) != 1 {
		t.Fatalf("max prompt 4: kept %d pairs, want 1", len(cut))
	}
	want := withEOS(append(tok.Encode("s q:"), tok.Encode("good.")...), tok.EOS())
	if !slices.Equal(cut[0].chosen, want) || cut[0].start != 4 {
		t.Errorf("max prompt 4 gave %v (start %d), want %v (start 4)", cut[0].chosen, cut[0].start, want)
	}
	if got := encodePairs(tok, []Pair{p}, 0, 12, dropOverLong); len(got) != 0 {
		t.Errorf("whole prompts: %d pairs fit max_length 12, want none", len(got))
	}
	pairs := syntheticPairs(rand.New(rand.NewPCG(6, 6)), 8)
	for i := range pairs {
		pairs[i].Prompt = long + pairs[i].Prompt
	}
	job := RMJob{Options: Options{Steps: 2, BatchSize: 4, Seed: 1, Optim: optim.Config{LR: 1e-2}, MaxLength: 40,
		LoRA: &pass.LoRAConfig{R: 4, Alpha: 8}, OutputDir: filepath.Join(t.TempDir(), "rm")},
		Base: pretrainedBase(t), Tokenizer: tok, Pairs: pairs}
	if _, err := TrainRewardModel(context.Background(), job); err == nil {
		t.Fatal("whole prompts longer than max_length trained; want every pair dropped")
	}
	job.MaxPromptLength = 6
	if _, err := TrainRewardModel(context.Background(), job); err != nil {
		t.Fatalf("prompts cut to 6 tokens: %v", err)
	}
}
