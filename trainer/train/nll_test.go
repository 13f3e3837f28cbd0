package train

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mascot.dev/mascot/trainer/lora"
	"mascot.dev/mascot/trainer/optim"
	"mascot.dev/mascot/trainer/pass"
	"mascot.dev/mascot/trainer/qwen3"
)

var corpus = []string{
	"the cat sat on the mat.", "the dog sat on the log.", "a cat and a dog sat.",
	"the mat is red, the log is big.", "is the cat on the mat? yes!",
}

func TestPretrainLowersLoss(t *testing.T) {
	var losses []float64
	dir := t.TempDir()
	res, err := Pretrain(context.Background(), PretrainJob{
		Options: Options{Steps: 40, BatchSize: 8, Optim: optim.Config{LR: 1e-2, WarmupSteps: 2}, Seed: 1,
			OutputDir: filepath.Join(dir, "base"), OnStep: func(m Metrics) { losses = append(losses, m.Loss) }},
		Config: tinyCfg(), Tokenizer: charTok{}, Texts: corpus, SeqLen: 24,
		EvalTexts: []string{"the dog sat on the mat.", "the cat is on a red log"},
	})
	if err != nil {
		t.Fatal(err)
	}
	first, last := mean(losses[:3]), mean(losses[len(losses)-3:])
	t.Logf("pretrain loss %.3f → %.3f", first, last)
	if last > first-1 {
		t.Errorf("pretraining loss went %.3f → %.3f, want a drop of at least 1 nat", first, last)
	}
	// Held-out sentences of the same words: their loss starts near ln 40
	// (a random model over 40 tokens) and falls by at least a nat. Two
	// texts and their EOS make 48 tokens: two windows of 24.
	ev := res.Eval
	t.Logf("held-out loss %.3f → %.3f (%v windows, %v tokens)", ev["loss_before"], ev["loss"], ev["examples"], ev["tokens"])
	if !(ev["loss_before"] > 3 && ev["loss_before"] < 4.5) || !(ev["loss"] < ev["loss_before"]-1) {
		t.Errorf("held-out loss %.3f → %.3f, want from about ln 40 = 3.69 down by at least a nat", ev["loss_before"], ev["loss"])
	}
	if ev["examples"] != 2 || ev["tokens"] != 46 {
		t.Errorf("held out %v windows and %v tokens, want 2 and 46 (23 predicted per window)", ev["examples"], ev["tokens"])
	}
	if res.Kind != "model" || len(res.Files) == 0 {
		t.Fatalf("result %+v", res)
	}
	m, err := qwen3.Load(res.Dir)
	if err != nil {
		t.Fatalf("loading the pretrained model: %v", err)
	}
	if _, err := m.Forward([]int{1, 2, 3}); err != nil {
		t.Fatal(err)
	}
}

// sftHeldout are examples of the same form as sftExamples, on other words.
func sftHeldout() []Example {
	return []Example{{"q: rat?", "a: the rat sat."}, {"q: hat?", "a: the hat is red."}}
}

func sftExamples() []Example {
	return []Example{
		{"q: cat?", "a: the cat sat."}, {"q: dog?", "a: the dog ran."},
		{"q: mat?", "a: the mat is red."}, {"q: log?", "a: the log is big."},
	}
}

func TestSFTLowersLossAndResumes(t *testing.T) {
	base := pretrainedBase(t)
	dir := t.TempDir()
	opts := func(steps int, out, ckpt string, sink *[]float64) Options {
		return Options{Steps: steps, BatchSize: 4, GradAccum: 2, Seed: 5,
			Optim: optim.Config{LR: 2e-2, TotalSteps: 30}, LoRA: &pass.LoRAConfig{R: 4, Alpha: 8, Dropout: 0.05},
			OutputDir: out, CheckpointDir: ckpt, CheckpointEvery: 5, BaseModelName: "Org/tiny",
			BaseRevision: "r1", BaseFingerprint: "stage:abc",
			OnStep: func(m Metrics) { *sink = append(*sink, m.Loss) }}
	}
	var losses []float64
	full, err := TrainSFT(context.Background(), SFTJob{Options: opts(30, filepath.Join(dir, "full"), "", &losses),
		Base: base, Tokenizer: charTok{}, Examples: sftExamples(), EvalExamples: sftHeldout()})
	if err != nil {
		t.Fatal(err)
	}
	first, last := mean(losses[:3]), mean(losses[len(losses)-3:])
	t.Logf("sft loss %.3f → %.3f", first, last)
	if last > first*0.6 {
		t.Errorf("sft loss went %.3f → %.3f, want at least a 40%% drop", first, last)
	}
	// The held-out answers share the form "a: the X ..." the model learns:
	// their completion loss falls. 16 and 19 completion tokens with EOS.
	ev := full.Eval
	t.Logf("held-out completion loss %.3f → %.3f", ev["loss_before"], ev["loss"])
	if !(ev["loss"] < ev["loss_before"]*0.8) || ev["examples"] != 2 || ev["tokens"] != 35 {
		t.Errorf("held-out eval %v, want the loss down by 20%% on 2 examples of 35 completion tokens", ev)
	}
	if full.Kind != "adapter" || full.Files["adapter_model.safetensors"] == "" || full.Files["adapter_config.json"] == "" {
		t.Fatalf("result files %v", full.Files)
	}
	// A run started from the saved adapter begins where the first ended.
	ad, err := lora.Load(full.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if c := ad.Config; c.BaseModelNameOrPath != "Org/tiny" || c.Revision == nil || *c.Revision != "r1" {
		t.Errorf("adapter config names base %q revision %v, want Org/tiny r1", c.BaseModelNameOrPath, c.Revision)
	}
	if m, err := lora.ReadMeta(full.Dir); err != nil || m.Base != "stage:abc" || full.Files[lora.MetaFile] == "" {
		t.Errorf("%s: %+v %v (files %v)", lora.MetaFile, m, err, full.Files)
	}
	var cont []float64
	o := opts(1, filepath.Join(dir, "cont"), "", &cont)
	o.InitAdapter = ad.Weights
	if _, err := TrainSFT(context.Background(), SFTJob{Options: o, Base: base, Tokenizer: charTok{}, Examples: sftExamples()}); err != nil {
		t.Fatal(err)
	}
	if cont[0] > first*0.6 {
		t.Errorf("starting from the trained adapter gave loss %.3f, fresh start %.3f", cont[0], first)
	}
	// Interrupted run: 10 steps, then a second call resumes to 30.
	var a, b []float64
	ckpt := filepath.Join(dir, "ckpt")
	if _, err := TrainSFT(context.Background(), SFTJob{Options: opts(10, filepath.Join(dir, "part"), ckpt, &a),
		Base: base, Tokenizer: charTok{}, Examples: sftExamples()}); err != nil {
		t.Fatal(err)
	}
	resumed, err := TrainSFT(context.Background(), SFTJob{Options: opts(30, filepath.Join(dir, "resumed"), ckpt, &b),
		Base: base, Tokenizer: charTok{}, Examples: sftExamples(), EvalExamples: sftHeldout()})
	if err != nil {
		t.Fatal(err)
	}
	// "Before" is the untrained adapter's even when the run resumed, and
	// "after" the same adapter's as the uninterrupted run's.
	if resumed.Eval["loss_before"] != ev["loss_before"] || resumed.Eval["loss"] != ev["loss"] {
		t.Errorf("resumed run's held-out loss %v, uninterrupted %v", resumed.Eval, ev)
	}
	assertWorldReadable(t, filepath.Join(ckpt, CheckpointFile), filepath.Join(full.Dir, lora.WeightsFile), filepath.Join(full.Dir, lora.ConfigFile))
	if resumed.ResumedFrom != 10 || len(b) != 20 {
		t.Fatalf("resumed from %d with %d more steps, want 10 and 20", resumed.ResumedFrom, len(b))
	}
	if resumed.Files["adapter_model.safetensors"] != full.Files["adapter_model.safetensors"] {
		t.Error("a resumed run wrote a different adapter than the uninterrupted run")
	}
}

// assertWorldReadable fails unless every path is 0644 or more open for
// reading: a vLLM running as another user must read adapters and
// checkpoints.
func assertWorldReadable(t *testing.T, paths ...string) {
	t.Helper()
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm()&0o644 != 0o644 {
			t.Errorf("%s is %v, want 0644", p, st.Mode().Perm())
		}
	}
}

// TestSFTHeldoutSkipsCompletionsCutAway: a held-out example whose
// completion max_length cuts away has nothing to score; SFT trains and
// reports the examples it could score (none here: no held-out figures),
// instead of failing (the QMSum SFT baseline's transcripts as prompts).
func TestSFTHeldoutSkipsCompletionsCutAway(t *testing.T) {
	long := sftHeldout()
	for i := range long {
		long[i].Prompt = strings.Repeat("an earlier line of the transcript. ", 4) + long[i].Prompt
	}
	res, err := TrainSFT(context.Background(), SFTJob{Options: Options{Steps: 3, BatchSize: 2, Seed: 5, MaxLength: 64,
		Optim: optim.Config{LR: 1e-2}, LoRA: &pass.LoRAConfig{R: 4, Alpha: 8}, OutputDir: filepath.Join(t.TempDir(), "sft")},
		Base: pretrainedBase(t), Tokenizer: charTok{}, Examples: sftExamples(), EvalExamples: long})
	if err != nil {
		t.Fatalf("SFT with held-out completions cut away: %v", err)
	}
	if _, ok := res.Eval["loss"]; ok {
		t.Errorf("held-out figures %v from examples with nothing to score", res.Eval)
	}
	both := append(sftHeldout()[:1], long...)
	res, err = TrainSFT(context.Background(), SFTJob{Options: Options{Steps: 3, BatchSize: 2, Seed: 5, MaxLength: 64,
		Optim: optim.Config{LR: 1e-2}, LoRA: &pass.LoRAConfig{R: 4, Alpha: 8}, OutputDir: filepath.Join(t.TempDir(), "sft2")},
		Base: pretrainedBase(t), Tokenizer: charTok{}, Examples: sftExamples(), EvalExamples: both})
	if err != nil {
		t.Fatal(err)
	}
	if res.Eval["examples"] != 1 || !(res.Eval["loss"] > 0) {
		t.Errorf("held-out %v, want the one scorable example scored", res.Eval)
	}
}
