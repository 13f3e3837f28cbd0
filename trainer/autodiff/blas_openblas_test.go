//go:build openblas && cgo && !cuda

package autodiff

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	G "gorgonia.org/gorgonia"
)

// The OpenBLAS build computes the same log-probs and gradients as the
// pure-Go gonum path, within float32 rounding, for a full fine-tuning
// forward+backward over rows of different lengths.
func TestOpenBLASMatchesGonum(t *testing.T) {
	if BLAS != "openblas" {
		t.Fatalf("the openblas build runs on %q", BLAS)
	}
	defer useBLAS("openblas")
	cfg := benchConfig()
	cfg.HiddenAct = "silu"
	w := randomWeights(cfg, 3)
	m, err := New(cfg, w, Options{Train: TrainAll, LoRA: &LoRAConfig{R: 4, Alpha: 8}})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	rng := rand.New(rand.NewPCG(5, 6))
	b := Batch{IDs: randomRows(rng, cfg.VocabSize, 40, 23, 31), T: 40}
	seed := make([][]float64, len(b.IDs))
	for r := range seed {
		seed[r] = make([]float64, b.T)
		for i := range seed[r] {
			seed[r][i] = rng.NormFloat64() / 100
		}
	}
	type result struct {
		logp  [][]float64
		grads [][]float64
	}
	pass := func(name string) result {
		useBLAS(name)
		if impl := fmt.Sprintf("%T", G.WhichBLAS()); impl != fmt.Sprintf("%T", blasImpls[name]) {
			t.Fatalf("gorgonia runs on %s, want %s", impl, name)
		}
		m.Params.ZeroGrad()
		out, err := m.Backward(bg, b, RunOptions{}, seed, nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		res := result{logp: out.LogP}
		for _, p := range m.Params.Trainable() {
			res.grads = append(res.grads, append([]float64(nil), p.Grad...))
		}
		return res
	}
	ref, got := pass("gonum"), pass("openblas")
	for r := range ref.logp {
		for i, v := range ref.logp[r] {
			if d := math.Abs(got.logp[r][i] - v); d > 1e-4*(1+math.Abs(v)) {
				t.Fatalf("logp[%d][%d]: openblas %g, gonum %g", r, i, got.logp[r][i], v)
			}
		}
	}
	for j, g := range ref.grads {
		var norm, diff float64
		for i, v := range g {
			norm += v * v
			diff += (got.grads[j][i] - v) * (got.grads[j][i] - v)
		}
		if math.Sqrt(diff) > 1e-3*math.Sqrt(norm)+1e-7 {
			t.Errorf("gradient %s: |openblas−gonum| = %g, |gonum| = %g", m.Params.Trainable()[j].Name, math.Sqrt(diff), math.Sqrt(norm))
		}
	}
}
