package net

import (
	"math/rand/v2"
	"testing"

	"mascot.dev/mascot/trainer/compute"
	"mascot.dev/mascot/trainer/pass"
	"mascot.dev/mascot/trainer/qwen3"
	"mascot.dev/mascot/trainer/safetensors"
)

// A checkpoint directory loads onto the backend as the same network as
// its weights widened in memory: a BF16 file as BF16 tensors (bit for bit
// the network that rounds the widened weights back on upload), an F32
// file as F32; a score head leaves an untied lm_head unread.
func TestLoadFromDirEqualsWeights(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	cfg := randomConfig(rng, false)
	cfg.Architectures = []string{qwen3.CausalLM}
	w := randomWeights(cfg, 7)
	qm, err := qwen3.New(cfg, w)
	if err != nil {
		t.Fatal(err)
	}
	b := pass.Batch{IDs: randomRows(rng, cfg.VocabSize, 6, 3)}
	for _, c := range []struct {
		file safetensors.DType
		dt   compute.DType
	}{{safetensors.BF16, compute.BF16}, {safetensors.F32, compute.F32}} {
		dir := t.TempDir()
		if err := qm.SaveAs(dir, c.file); err != nil {
			t.Fatal(err)
		}
		fromDir, err := Load(newCPU(t, 2), dir, Options{})
		if err != nil {
			t.Fatal(err)
		}
		widened, err := qwen3.Load(dir) // the file's values, widened to float32
		if err != nil {
			t.Fatal(err)
		}
		fromMem, err := New(newCPU(t, 2), cfg, FromWeights(widened.Weights), Options{BaseDType: c.dt})
		if err != nil {
			t.Fatal(err)
		}
		if got := fromDir.byName[qwen3.ProjKey(0, qwen3.QProj)].v.DType(); got != c.dt {
			t.Fatalf("%s file: projections stored as %v, want %v", c.file, got, c.dt)
		}
		x, err := fromDir.Forward(bg, b, pass.RunOptions{})
		if err != nil {
			t.Fatal(err)
		}
		y, err := fromMem.Forward(bg, b, pass.RunOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for r := range x.LogP {
			for i := range x.LogP[r] {
				if x.LogP[r][i] != y.LogP[r][i] {
					t.Fatalf("%s file: logp[%d][%d] %v from the directory, %v from memory", c.file, r, i, x.LogP[r][i], y.LogP[r][i])
				}
			}
		}
		scored, err := Load(newCPU(t, 2), dir, Options{ScoreHead: true})
		if err != nil {
			t.Fatal(err)
		}
		head := int64(cfg.VocabSize*cfg.HiddenSize)*int64(c.dt.Size()) - 4*int64(cfg.HiddenSize) // lm_head out, score.weight in
		if fromDir.BaseBytes()-scored.BaseBytes() < head {
			t.Errorf("%s file: a score-head model holds %d base bytes, the causal LM %d: lm_head loaded", c.file, scored.BaseBytes(), fromDir.BaseBytes())
		}
		fromDir.Close()
		fromMem.Close()
		scored.Close()
	}
}
