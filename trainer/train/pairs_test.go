package train

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"mascot.dev/mascot/trainer/optim"
	"mascot.dev/mascot/trainer/pass"
	"mascot.dev/mascot/trainer/qwen3"
)

var fillers = []string{"the", "cat", "dog", "sat", "on", "mat", "log", "red", "big", "is", "a", "and"}

// syntheticPairs: the chosen reply contains "good", the rejected one "bad",
// each at a random place among random filler words.
func syntheticPairs(rng *rand.Rand, n int) []Pair {
	out := make([]Pair, n)
	reply := func(word string) string {
		w := make([]string, 4)
		for i := range w {
			w[i] = fillers[rng.IntN(len(fillers))]
		}
		at := rng.IntN(len(w) + 1)
		w = append(w[:at], append([]string{word}, w[at:]...)...)
		return strings.Join(w, " ") + "."
	}
	for i := range out {
		out[i] = Pair{Prompt: fmt.Sprintf("q%d:", i%3), Chosen: reply("good"), Rejected: reply("bad")}
	}
	return out
}

func TestRewardModelLearnsHeldOutPairs(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	train, eval := syntheticPairs(rng, 64), syntheticPairs(rng, 40)
	dir := t.TempDir()
	res, err := TrainRewardModel(context.Background(), RMJob{
		Options: Options{Steps: 40, BatchSize: 8, Seed: 2, Optim: optim.Config{LR: 1e-2},
			LoRA: &pass.LoRAConfig{R: 4, Alpha: 8}, OutputDir: filepath.Join(dir, "rm")},
		Base: pretrainedBase(t), Tokenizer: charTok{}, Pairs: train, EvalPairs: eval, CenterRewardsCoefficient: 0.01,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("held-out accuracy %.2f, margin %.2f", res.Eval["accuracy"], res.Eval["margin"])
	if res.Eval["accuracy"] < 0.8 {
		t.Errorf("held-out accuracy %.2f, want ≥ 0.80", res.Eval["accuracy"])
	}
	// The merged checkpoint scores like the trained graph.
	rm, err := qwen3.Load(res.Dir)
	if err != nil {
		t.Fatal(err)
	}
	tok := charTok{}
	var correct int
	for _, p := range eval {
		c, err := rm.Score(withEOS(append(tok.Encode(p.Prompt), tok.Encode(p.Chosen)...), tok.EOS()))
		if err != nil {
			t.Fatal(err)
		}
		r, _ := rm.Score(withEOS(append(tok.Encode(p.Prompt), tok.Encode(p.Rejected)...), tok.EOS()))
		if c[0] > r[0] {
			correct++
		}
	}
	if got := float64(correct) / float64(len(eval)); got != res.Eval["accuracy"] {
		t.Errorf("saved checkpoint accuracy %.2f, trained graph %.2f", got, res.Eval["accuracy"])
	}
}

func TestDPORaisesMargin(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	var margins []float64
	res, err := TrainDPO(context.Background(), DPOJob{
		Options: Options{Steps: 25, BatchSize: 8, Seed: 3, Optim: optim.Config{LR: 1e-2},
			LoRA: &pass.LoRAConfig{R: 4, Alpha: 8}, OutputDir: filepath.Join(t.TempDir(), "dpo"),
			OnStep: func(m Metrics) { margins = append(margins, m.Extra["margin"]) }},
		Base: pretrainedBase(t), Tokenizer: charTok{}, Pairs: syntheticPairs(rng, 32), Beta: 0.1,
	})
	if err != nil {
		t.Fatal(err)
	}
	first, last := margins[0], mean(margins[len(margins)-3:])
	t.Logf("dpo margin %.3f → %.3f", first, last)
	if first != 0 {
		t.Errorf("first-step margin %g, want 0 (B = 0 makes policy = reference)", first)
	}
	if last < 1 {
		t.Errorf("dpo chosen-minus-rejected margin reached %.3f, want ≥ 1", last)
	}
	if res.Kind != "adapter" {
		t.Errorf("kind %q", res.Kind)
	}
}
