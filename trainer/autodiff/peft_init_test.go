//go:build !cuda

package autodiff

import (
	"math"
	"testing"
)

// TestLoRAInitIsPEFTs checks the adapter init PEFT's init_lora_weights=true
// gives and vLLM expects of a fresh adapter: A ~ U(−1/√in, 1/√in) (so
// |A| ≤ 1/√in and std 1/√(3·in)), B = 0.
func TestLoRAInitIsPEFTs(t *testing.T) {
	cfg := tinyConfig(true)
	m, err := New(cfg, randomWeights(cfg, 2), Options{LoRA: &LoRAConfig{R: 8, Alpha: 16}, Train: TrainLoRA, Seed: 9})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	var ss float64
	var n int
	for i := 0; i < cfg.NumHiddenLayers; i++ {
		for _, proj := range AllTargets {
			mod := modulePath(i, proj)
			a, b := m.Params.Get(LoRAKeyA(mod)), m.Params.Get(LoRAKeyB(mod))
			if a == nil || b == nil {
				t.Fatalf("%s has no adapter", mod)
			}
			in := a.Len() / 8
			bound := 1 / math.Sqrt(float64(in))
			for j := 0; j < a.Len(); j++ {
				v := a.At(j)
				if math.Abs(v) > bound {
					t.Fatalf("%s: A value %v beyond ±%v", mod, v, bound)
				}
				ss += (v / bound) * (v / bound)
				n++
			}
			for j := 0; j < b.Len(); j++ {
				if b.At(j) != 0 {
					t.Fatalf("%s: B not zero", mod)
				}
			}
		}
	}
	if std := math.Sqrt(ss / float64(n)); math.Abs(std-1/math.Sqrt(3)) > 0.05 {
		t.Fatalf("A std %v of its bound, uniform would give %v", std, 1/math.Sqrt(3))
	}
}
