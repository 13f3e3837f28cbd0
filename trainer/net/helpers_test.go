package net

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"mascot.dev/mascot/trainer/compute"
	"mascot.dev/mascot/trainer/compute/cpu"
	"mascot.dev/mascot/trainer/lora"
	"mascot.dev/mascot/trainer/pass"
	"mascot.dev/mascot/trainer/qwen3"
)

var bg = context.Background()

// randomConfig is a small Qwen3 config: GQA with kv heads dividing the
// heads, head_dim independent of hidden/heads.
func randomConfig(rng *rand.Rand, tied bool) qwen3.Config {
	heads := []struct{ H, K int }{{4, 2}, {4, 1}, {2, 2}, {6, 3}}[rng.IntN(4)]
	return qwen3.Config{ModelType: "qwen3", HiddenAct: "silu", VocabSize: 40 + rng.IntN(30),
		HiddenSize: 16 + 8*rng.IntN(3), IntermediateSize: 24 + 8*rng.IntN(3), NumHiddenLayers: 2,
		NumAttentionHeads: heads.H, NumKeyValueHeads: heads.K, HeadDim: []int{8, 12, 16}[rng.IntN(3)],
		RMSNormEps: 1e-6, RopeTheta: []float64{10000, 1e6}[rng.IntN(2)], TieWordEmbeddings: tied}
}

// randomWeights fills every tensor of cfg: matrices N(0, 1/in), norm
// weights 1 + N(0, 0.1²) (so that their gradients are tested too).
func randomWeights(cfg qwen3.Config, seed uint64) qwen3.Weights {
	rng := rand.New(rand.NewPCG(seed, 7))
	w := qwen3.Weights{}
	keys := sortedKeys(cfg.Shapes())
	for _, k := range keys {
		sh := cfg.Shapes()[k]
		t := &qwen3.Tensor{Shape: sh, Data: make([]float32, numel(sh))}
		for i := range t.Data {
			if len(sh) == 1 {
				t.Data[i] = float32(1 + 0.1*rng.NormFloat64())
			} else {
				t.Data[i] = float32(rng.NormFloat64() / math.Sqrt(float64(sh[1])))
			}
		}
		w[k] = t
	}
	return w
}

func sortedKeys(m map[string][]int) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	for i := range ks {
		for j := i + 1; j < len(ks); j++ {
			if ks[j] < ks[i] {
				ks[i], ks[j] = ks[j], ks[i]
			}
		}
	}
	return ks
}

// randomAdapter is a LoRA adapter with nonzero A and B on every target.
func randomAdapter(cfg qwen3.Config, lc pass.LoRAConfig, seed uint64) qwen3.Weights {
	rng := rand.New(rand.NewPCG(seed, 11))
	w := qwen3.Weights{}
	for i := 0; i < cfg.NumHiddenLayers; i++ {
		for p := qwen3.Proj(0); p < qwen3.NumProj; p++ {
			if !lc.Adapts(p.Name()) {
				continue
			}
			sh := cfg.ProjShape(p)
			a := &qwen3.Tensor{Shape: []int{lc.R, sh[1]}, Data: make([]float32, lc.R*sh[1])}
			b := &qwen3.Tensor{Shape: []int{sh[0], lc.R}, Data: make([]float32, sh[0]*lc.R)}
			for j := range a.Data {
				a.Data[j] = float32(rng.NormFloat64() * 0.3)
			}
			for j := range b.Data {
				b.Data[j] = float32(rng.NormFloat64() * 0.3)
			}
			w[lora.KeyA(i, p)], w[lora.KeyB(i, p)] = a, b
		}
	}
	return w
}

func randomRows(rng *rand.Rand, V int, lens ...int) [][]int {
	rows := make([][]int, len(lens))
	for i, n := range lens {
		rows[i] = make([]int, n)
		for j := range rows[i] {
			rows[i][j] = rng.IntN(V)
		}
	}
	return rows
}

// newCPU is a CPU backend with small blocks, so that small shapes cross
// block edges.
func newCPU(t testing.TB, threads int) *cpu.Backend {
	t.Helper()
	be, err := cpu.New(cpu.Options{Threads: threads, Blocks: cpu.Blocks{AttnQ: 3, HeadRows: 2, HeadVocab: 7, GemmConvert: 64}})
	if err != nil {
		t.Fatal(err)
	}
	return be
}

func download(be compute.Backend, t compute.Tensor) []float32 {
	out := make([]float32, t.Len())
	be.Download(out, t)
	return out
}
