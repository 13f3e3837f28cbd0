package train

import (
	"context"
	"encoding/gob"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"mascot.dev/mascot/trainer/optim"
	"mascot.dev/mascot/trainer/pass"
)

// Two identical training runs on the net network give bit-identical
// metrics (losses and gradient norms, functions of every gradient) and
// byte-identical outputs, for a given thread count: a reward model with
// LoRA, and SFT with LoRA dropout.
func TestTrainingIsDeterministic(t *testing.T) {
	base := pretrainedBase(t)
	rng := rand.New(rand.NewPCG(8, 8))
	pairs := syntheticPairs(rng, 12)
	for _, threads := range []int{1, 2} {
		var runs [2][]Metrics
		var files [2]map[string]string
		for i := range runs {
			res, err := TrainRewardModel(context.Background(), RMJob{
				Options: Options{Steps: 4, BatchSize: 3, GradAccum: 2, Seed: 6, Threads: threads, Optim: optim.Config{LR: 1e-2},
					LoRA: &pass.LoRAConfig{R: 4, Alpha: 8}, OutputDir: filepath.Join(t.TempDir(), "rm"),
					OnStep: func(m Metrics) { runs[i] = append(runs[i], m) }},
				Base: base, Tokenizer: charTok{}, Pairs: pairs,
			})
			if err != nil {
				t.Fatal(err)
			}
			files[i] = res.Files
		}
		sameRuns(t, "reward model", runs[0], runs[1])
		if files[0]["model.safetensors"] == "" || files[0]["model.safetensors"] != files[1]["model.safetensors"] {
			t.Errorf("threads %d: reward models differ: %v vs %v", threads, files[0], files[1])
		}
		var sft [2][]Metrics
		for i := range sft {
			res, err := TrainSFT(context.Background(), SFTJob{
				Options: Options{Steps: 3, BatchSize: 4, Seed: 2, Threads: threads, Optim: optim.Config{LR: 2e-2},
					LoRA: &pass.LoRAConfig{R: 4, Alpha: 8, Dropout: 0.1}, OutputDir: filepath.Join(t.TempDir(), "sft"),
					OnStep: func(m Metrics) { sft[i] = append(sft[i], m) }},
				Base: base, Tokenizer: charTok{}, Examples: sftExamples()})
			if err != nil {
				t.Fatal(err)
			}
			files[i] = res.Files
		}
		sameRuns(t, "sft", sft[0], sft[1])
		if files[0]["adapter_model.safetensors"] != files[1]["adapter_model.safetensors"] {
			t.Errorf("threads %d: sft adapters differ", threads)
		}
	}
}

func sameRuns(t *testing.T, what string, a, b []Metrics) {
	t.Helper()
	if len(a) != len(b) || len(a) == 0 {
		t.Fatalf("%s: %d and %d steps", what, len(a), len(b))
	}
	for i := range a {
		if math.Float64bits(a[i].Loss) != math.Float64bits(b[i].Loss) || math.Float64bits(a[i].GradNorm) != math.Float64bits(b[i].GradNorm) {
			t.Fatalf("%s step %d: loss %v / %v, grad norm %v / %v", what, i+1, a[i].Loss, b[i].Loss, a[i].GradNorm, b[i].GradNorm)
		}
	}
}

// A checkpoint written before the optimizer moved to the backend (format
// version 1: float64 moments) still resumes, to the same adapter as the
// same state in today's format.
func TestVersion1CheckpointResumes(t *testing.T) {
	base := pretrainedBase(t)
	dir := t.TempDir()
	opts := func(steps int, out, ckpt string) Options {
		return Options{Steps: steps, BatchSize: 4, Seed: 5, Optim: optim.Config{LR: 2e-2, TotalSteps: 6},
			LoRA: &pass.LoRAConfig{R: 4, Alpha: 8}, OutputDir: filepath.Join(dir, out), CheckpointDir: ckpt, CheckpointEvery: 3}
	}
	ck := filepath.Join(dir, "ck")
	if _, err := TrainSFT(context.Background(), SFTJob{Options: opts(3, "a", ck), Base: base, Tokenizer: charTok{}, Examples: sftExamples()}); err != nil {
		t.Fatal(err)
	}
	// Rewrite the checkpoint as version 1 wrote it.
	f, err := os.Open(filepath.Join(ck, CheckpointFile))
	if err != nil {
		t.Fatal(err)
	}
	var c checkpoint
	if err := gob.NewDecoder(f).Decode(&c); err != nil {
		t.Fatal(err)
	}
	f.Close()
	v1 := checkpoint{Kind: c.Kind, Step: c.Step, Params: c.Params, Optim: optim.State{Step: c.Moments.Step, M: widen(c.Moments.M), V: widen(c.Moments.V)}}
	ck1 := filepath.Join(dir, "ck1")
	if err := os.MkdirAll(ck1, 0o755); err != nil {
		t.Fatal(err)
	}
	w, err := os.Create(filepath.Join(ck1, CheckpointFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := gob.NewEncoder(w).Encode(&v1); err != nil {
		t.Fatal(err)
	}
	w.Close()
	r2, err := TrainSFT(context.Background(), SFTJob{Options: opts(6, "b", ck), Base: base, Tokenizer: charTok{}, Examples: sftExamples()})
	if err != nil {
		t.Fatal(err)
	}
	r1, err := TrainSFT(context.Background(), SFTJob{Options: opts(6, "c", ck1), Base: base, Tokenizer: charTok{}, Examples: sftExamples()})
	if err != nil {
		t.Fatal(err)
	}
	if r1.ResumedFrom != 3 || r2.ResumedFrom != 3 {
		t.Fatalf("resumed from %d (version 1) and %d (version 2), want 3", r1.ResumedFrom, r2.ResumedFrom)
	}
	if r1.Files["adapter_model.safetensors"] != r2.Files["adapter_model.safetensors"] {
		t.Error("resuming a version-1 checkpoint gave another adapter than the same state in version 2")
	}
}

func widen(in map[string][]float32) map[string][]float64 {
	out := map[string][]float64{}
	for k, v := range in {
		f := make([]float64, len(v))
		for i, x := range v {
			f[i] = float64(x)
		}
		out[k] = f
	}
	return out
}

// The autodiff network stays selectable and trains the same reward model
// as net within float32 rounding.
func TestAutodiffNetworkMatchesNet(t *testing.T) {
	base := pretrainedBase(t)
	pairs := syntheticPairs(rand.New(rand.NewPCG(9, 9)), 8)
	var runs [2][]Metrics
	for i, nw := range []string{NetworkNet, NetworkAutodiff} {
		if _, err := TrainRewardModel(context.Background(), RMJob{
			Options: Options{Steps: 3, BatchSize: 4, Seed: 6, Network: nw, Optim: optim.Config{LR: 1e-2},
				LoRA: &pass.LoRAConfig{R: 4, Alpha: 8}, OutputDir: filepath.Join(t.TempDir(), nw),
				OnStep: func(m Metrics) { runs[i] = append(runs[i], m) }},
			Base: base, Tokenizer: charTok{}, Pairs: pairs,
		}); err != nil {
			t.Fatal(err)
		}
	}
	for k := range runs[0] {
		a, b := runs[0][k], runs[1][k]
		if math.Abs(a.Loss-b.Loss) > 1e-4 || math.Abs(a.GradNorm-b.GradNorm) > 1e-4*math.Max(1, b.GradNorm) {
			t.Errorf("step %d: net loss %.6f norm %.6f, autodiff loss %.6f norm %.6f", k+1, a.Loss, a.GradNorm, b.Loss, b.GradNorm)
		}
	}
	if _, err := TrainRewardModel(context.Background(), RMJob{Options: Options{Steps: 1, Network: "torch", Optim: optim.Config{LR: 1},
		LoRA: &pass.LoRAConfig{R: 2, Alpha: 2}, OutputDir: t.TempDir()}, Base: base, Tokenizer: charTok{}, Pairs: pairs}); err == nil {
		t.Error("an unknown network was accepted")
	}
}
