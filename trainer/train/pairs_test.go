package train

import (
	"context"
	"fmt"
	"math"
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
	var steps []Metrics
	res, err := TrainRewardModel(context.Background(), RMJob{
		Options: Options{Steps: 40, BatchSize: 8, Seed: 2, Optim: optim.Config{LR: 1e-2},
			LoRA: &pass.LoRAConfig{R: 4, Alpha: 8}, OutputDir: filepath.Join(dir, "rm"),
			OnStep: func(m Metrics) { steps = append(steps, m) }},
		Base: pretrainedBase(t), Tokenizer: charTok{}, Pairs: train, EvalPairs: eval, EvalEvery: 8, CenterRewardsCoefficient: 0.01,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("held-out accuracy %.2f, loss %.3f, margin %.2f", res.Eval["accuracy"], res.Eval["loss"], res.Eval["margin"])
	if res.Eval["accuracy"] < 0.8 {
		t.Errorf("held-out accuracy %.2f, want ≥ 0.80", res.Eval["accuracy"])
	}
	// Every 8 steps (one epoch of 64 pairs in batches of 8) the step
	// carries the held-out accuracy and loss; the last is Result.Eval, and
	// the loss fell from the first epoch to the last.
	var evals []Metrics
	for _, m := range steps {
		_, ok := m.Extra["heldout_accuracy"]
		if ok != (m.Step%8 == 0) {
			t.Errorf("step %d: held-out evaluation present %v, want it every 8 steps", m.Step, ok)
		}
		if ok {
			evals = append(evals, m)
		}
	}
	if len(evals) != 5 {
		t.Fatalf("%d held-out evaluations, want 5", len(evals))
	}
	last := evals[len(evals)-1]
	if last.Extra["heldout_accuracy"] != res.Eval["accuracy"] || last.Extra["heldout_loss"] != res.Eval["loss"] {
		t.Errorf("last step's held-out %v/%v, result %v/%v", last.Extra["heldout_accuracy"], last.Extra["heldout_loss"],
			res.Eval["accuracy"], res.Eval["loss"])
	}
	if first := evals[0].Extra["heldout_loss"]; !(res.Eval["loss"] < first) {
		t.Errorf("held-out loss %.4f after 5 epochs, %.4f after 1: it did not fall", res.Eval["loss"], first)
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
		EvalPairs: syntheticPairs(rng, 16),
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
	// Held-out pairs (other random fillers): before training the policy
	// is the reference, so no pair is ranked and the loss is ln 2; after,
	// "good" beats "bad" on most of them.
	ev := res.Eval
	t.Logf("held-out accuracy %.2f → %.2f, loss %.4f → %.4f", ev["accuracy_before"], ev["accuracy"], ev["loss_before"], ev["loss"])
	if ev["accuracy_before"] != 0 || math.Abs(ev["loss_before"]-math.Ln2) > 1e-9 || ev["pairs"] != 16 {
		t.Errorf("held-out before training %v, want accuracy 0 and loss ln 2 on 16 pairs", ev)
	}
	if ev["accuracy"] < 0.8 || !(ev["loss"] < ev["loss_before"]-0.1) {
		t.Errorf("held-out after training: accuracy %.2f, loss %.4f; want ≥ 0.8 and below ln 2 − 0.1", ev["accuracy"], ev["loss"])
	}
}

// TestDPOMaxPromptLengthLeavesRoomForTheCompletions: with prompts longer
// than max_length, keeping the sequence's first tokens leaves the
// completions nothing and DPO cannot move (held-out loss stays ln 2);
// max_prompt_length keeps the prompts' last tokens first, and DPO learns.
func TestDPOMaxPromptLengthLeavesRoomForTheCompletions(t *testing.T) {
	heldout := func(maxPrompt int) map[string]float64 {
		rng := rand.New(rand.NewPCG(2, 2))
		long := func(ps []Pair) []Pair {
			for i := range ps {
				ps[i].Prompt = strings.Repeat("an earlier turn of the conversation. ", 4) + ps[i].Prompt
			}
			return ps
		}
		res, err := TrainDPO(context.Background(), DPOJob{
			Options: Options{Steps: 25, BatchSize: 8, Seed: 3, MaxLength: 64, Optim: optim.Config{LR: 1e-2},
				LoRA: &pass.LoRAConfig{R: 4, Alpha: 8}, OutputDir: filepath.Join(t.TempDir(), "dpo")},
			Base: pretrainedBase(t), Tokenizer: charTok{}, Pairs: long(syntheticPairs(rng, 32)), Beta: 0.1,
			EvalPairs: long(syntheticPairs(rng, 16)), MaxPromptLength: maxPrompt,
		})
		if err != nil {
			t.Fatal(err)
		}
		return res.Eval
	}
	cut := heldout(0)
	if math.Abs(cut["loss"]-math.Ln2) > 1e-9 {
		t.Errorf("prompts of 150 characters under max_length 64 left the completions tokens: held-out loss %.4f, want ln 2", cut["loss"])
	}
	kept := heldout(8)
	t.Logf("held-out loss %.4f (no max_prompt_length), %.4f (8)", cut["loss"], kept["loss"])
	if !(kept["loss"] < math.Ln2-0.1) || kept["accuracy"] < 0.8 {
		t.Errorf("with max_prompt_length 8: held-out accuracy %.2f, loss %.4f; want ≥ 0.8 and below ln 2 − 0.1", kept["accuracy"], kept["loss"])
	}
}
