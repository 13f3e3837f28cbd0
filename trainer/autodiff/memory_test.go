//go:build !cuda

package autodiff

import (
	"math/rand/v2"
	"runtime"
	"testing"

	"mascot.dev/mascot/trainer/qwen3"
)

// passBytes is the memory one training pass over a 1×T batch allocates,
// compilation excluded (the graph is compiled by a first pass).
func passBytes(t *testing.T, m *Model, T int) uint64 {
	t.Helper()
	rng := rand.New(rand.NewPCG(uint64(T), 1))
	b := Batch{IDs: randomRows(rng, m.Config.VocabSize, T)}
	seed := [][]float64{make([]float64, T)}
	for i := range seed[0] {
		seed[0][i] = -1 / float64(T)
	}
	if _, err := m.Backward(bg, b, RunOptions{}, seed, nil); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if _, err := m.Backward(bg, b, RunOptions{}, seed, nil); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc + graphBytes(m)
}

// graphBytes is what the compiled graphs hold: the values of every node.
func graphBytes(m *Model) uint64 {
	var n uint64
	for _, g := range m.graphs {
		for _, node := range g.g.AllNodes() {
			if v := node.Value(); v != nil {
				n += uint64(v.MemSize())
			}
		}
	}
	return n
}

// Training memory grows linearly with the sequence: doubling a
// QMSum-length row (1,024 → 2,048 tokens) on the demo's model at most
// 2.5× its memory. A [T, T] attention matrix per head and layer (what the
// graph stored before the fused attention op) made it ≈ 3.5×.
func TestTrainingMemoryIsLinearInLength(t *testing.T) {
	cfg := demoConfig()
	cfg.HiddenAct = "silu"
	w := randomWeights(cfg, 2)
	mem := map[int]uint64{}
	for _, T := range []int{1024, 2048} {
		m, err := New(cfg, w, Options{Train: TrainLoRA, LoRA: &LoRAConfig{R: 8, Alpha: 16}})
		if err != nil {
			t.Fatal(err)
		}
		mem[T] = passBytes(t, m, T)
		m.Close()
	}
	ratio := float64(mem[2048]) / float64(mem[1024])
	t.Logf("one pass: %d MB at T=1024, %d MB at T=2048 (×%.2f)", mem[1024]>>20, mem[2048]>>20, ratio)
	if ratio > 2.5 {
		t.Errorf("doubling the sequence multiplied training memory by %.2f, want ≤ 2.5 (linear)", ratio)
	}
}

// demoConfig is the demo's pretrained model (schema #Pretrain defaults over
// the byte-level vocabulary).
func demoConfig() qwen3.Config {
	return qwen3.Config{ModelType: "qwen3", VocabSize: 282, HiddenSize: 64, IntermediateSize: 128,
		NumHiddenLayers: 2, NumAttentionHeads: 4, NumKeyValueHeads: 2, HeadDim: 16,
		RMSNormEps: 1e-6, RopeTheta: 10000, TieWordEmbeddings: true}
}

// A Model keeps the forward and backward graphs of the shape in use even
// past MaxCachedTokens, drops graphs of other shapes once the cached tokens
// pass it, and keeps small graphs of several shapes.
func TestGraphCacheDropsOtherShapes(t *testing.T) {
	cfg := tinyConfig(true)
	m, err := New(cfg, randomWeights(cfg, 1), Options{Train: TrainAll})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	rng := rand.New(rand.NewPCG(3, 4))
	T := MaxCachedTokens * 3 / 8 // two rows: 3/4 of the budget per graph
	run := func(T int, grad bool) {
		t.Helper()
		b := Batch{IDs: randomRows(rng, cfg.VocabSize, T, T)}
		if grad {
			_, err = m.Backward(bg, b, RunOptions{}, nil, nil)
		} else {
			_, err = m.Forward(bg, b, RunOptions{})
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	has := func(want ...graphKey) {
		t.Helper()
		if len(m.graphs) != len(want) {
			t.Fatalf("cached graphs %v, want %v", m.order, want)
		}
		for _, k := range want {
			if m.graphs[k] == nil {
				t.Fatalf("cached graphs %v, want %v", m.order, want)
			}
		}
	}
	run(T, false)
	run(T, true)
	has(graphKey{2, T, false}, graphKey{2, T, true})
	run(T+16, false)
	has(graphKey{2, T + 16, false})
	run(4, false)
	run(8, true)
	has(graphKey{2, T + 16, false}, graphKey{2, 4, false}, graphKey{2, 8, true})
}

// With a large vocabulary the LM head's [N, V] tensors dominate a pass; the
// fused log-prob op keeps their count small. Counting what a training pass
// over 512 tokens with a 16,384-token vocabulary allocates plus what the
// graph holds, the fused head comes to ≈ 7 logits' worth (the logits and
// their gradient, each allocated by the pass and held by the graph, and
// gradient temporaries); the unfused head (scaled logits, log-softmax,
// gather and their gradients) came to ≈ 18.
func TestLMHeadMemory(t *testing.T) {
	cfg := demoConfig()
	cfg.HiddenAct, cfg.VocabSize = "silu", 16384
	m, err := New(cfg, randomWeights(cfg, 2), Options{Train: TrainLoRA, LoRA: &LoRAConfig{R: 8, Alpha: 16}})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	const T = 512
	nv := uint64(T * cfg.VocabSize * 4)
	got := passBytes(t, m, T)
	t.Logf("one pass: %d MB, %.1f × the [N, V] logits", got>>20, float64(got)/float64(nv))
	if got > 10*nv {
		t.Errorf("one pass takes %.1f [N, V] tensors' worth, want at most 10", float64(got)/float64(nv))
	}
}
