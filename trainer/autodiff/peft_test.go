//go:build !cuda

package autodiff

import (
	"slices"
	"testing"

	"mascot.dev/mascot/trainer/lora"
	"mascot.dev/mascot/trainer/qwen3"
)

// TestLoRAKeysMatchPEFT checks that the adapters the graph trains carry
// exactly the PEFT keys and shapes trainer/lora writes (docs/design/peft.md),
// for every target subset tried and with GQA and head_dim ≠ hidden/heads.
func TestLoRAKeysMatchPEFT(t *testing.T) {
	cfg := tinyConfig(true)
	cfg.HiddenAct = "silu"
	w := randomWeights(cfg, 1)
	for _, targets := range [][]string{nil, {"q_proj", "v_proj"}, {"o_proj", "down_proj", "gate_proj"}} {
		m, err := New(cfg, w, Options{LoRA: &LoRAConfig{R: 4, Alpha: 8, Targets: targets}, Train: TrainLoRA})
		if err != nil {
			t.Fatal(err)
		}
		want, err := lora.KeyShapes(cfg, lora.NewConfig("tiny", 4, 8, targets))
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range m.Params.Trainable() {
			for i := 0; i < p.Len(); i++ {
				p.Set(i, p.At(i)+0.1*float64((i*7)%5-2))
			}
		}
		got := m.LoRAWeights()
		if len(got) != len(want) {
			t.Errorf("targets %v: %d adapter tensors, PEFT layout has %d", targets, len(got), len(want))
		}
		for _, ks := range want {
			g, ok := got[ks.Key]
			if !ok || !slices.Equal(g.Shape, ks.Shape) {
				t.Errorf("targets %v: %s missing or shaped %v, want %v", targets, ks.Key, shapeOf(g), ks.Shape)
			}
		}
		// Starting a model from the saved adapter reproduces it exactly.
		again, err := New(cfg, w, Options{LoRA: &LoRAConfig{R: 4, Alpha: 8, Targets: targets}, Train: TrainLoRA, InitLoRA: got})
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range again.LoRAWeights() {
			if !slices.Equal(v.Data, got[k].Data) {
				t.Errorf("targets %v: %s differs after InitLoRA round trip", targets, k)
			}
		}
		// The PEFT adapter applied on the fly by trainer/qwen3 gives the graph's logits.
		ad := &lora.Adapter{Config: lora.NewConfig("tiny", 4, 8, targets), Weights: got}
		base, err := qwen3.New(cfg, w)
		if err != nil {
			t.Fatal(err)
		}
		view, err := base.WithAdapters(ad)
		if err != nil {
			t.Fatalf("targets %v: trainer/qwen3 rejects the adapter: %v", targets, err)
		}
		rows := [][]int{{1, 5, 9, 2, 7, 3}}
		if d := maxDiff(t, m, rows, func(ids []int) [][]float64 {
			lt, err := view.Forward(ids)
			if err != nil {
				t.Fatal(err)
			}
			out := make([][]float64, len(ids))
			for p := range out {
				for v := 0; v < cfg.VocabSize; v++ {
					out[p] = append(out[p], float64(lt.Data[p*cfg.VocabSize+v]))
				}
			}
			return out
		}); d > 1e-4 {
			t.Errorf("targets %v: graph with LoRA differs from trainer/qwen3 with the PEFT adapter by %g", targets, d)
		}
	}
}

func shapeOf(t *qwen3.Tensor) []int {
	if t == nil {
		return nil
	}
	return t.Shape
}
