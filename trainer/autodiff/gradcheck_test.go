//go:build !cuda

package autodiff

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// surrogate evaluates Σ seedL·LogP + Σ seedS·Score with a forward pass.
func surrogate(t *testing.T, m *Model, b Batch, o RunOptions, sl, ss [][]float64) float64 {
	t.Helper()
	out, err := m.Forward(bg, b, o)
	if err != nil {
		t.Fatal(err)
	}
	var s float64
	for r := range sl {
		for p := range sl[r] {
			if out.LogP == nil {
				s += ss[r][p] * out.Score[r][p]
				continue
			}
			s += sl[r][p] * out.LogP[r][p]
			if out.Score != nil {
				s += ss[r][p] * out.Score[r][p]
			}
		}
	}
	return s
}

// TestGradientsMatchFiniteDifferences checks the backward of every layer
// (embedding, RMSNorms, attention projections with RoPE and GQA, q/k norms,
// MLP, LoRA A/B with dropout, LM head and score head) in float64 against
// central differences, on a few elements of each parameter.
func TestGradientsMatchFiniteDifferences(t *testing.T) {
	for _, c := range []struct{ tied, score bool }{{true, false}, {false, false}, {false, true}} {
		tied := c.tied
		cfg := tinyConfig(tied)
		cfg.NumHiddenLayers = 1
		w := randomWeights(cfg, 4)
		lc := &LoRAConfig{R: 2, Alpha: 4, Dropout: 0.3}
		m, err := New(cfg, w, Options{Float64: true, LoRA: lc, Train: TrainAll, ScoreHead: c.score, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(11, uint64(len(cfg.ModelType))))
		for _, p := range m.Params.List {
			if strings.HasSuffix(p.Name, "lora_B.weight") {
				for i := 0; i < p.Len(); i++ {
					p.Set(i, 0.3*rng.NormFloat64())
				}
			}
		}
		rows := randomRows(rng, cfg.VocabSize, 5, 3)
		b := Batch{IDs: rows, T: 5}
		o := RunOptions{Dropout: true, DropoutSeed: 42, Temperature: 0.7}
		sl, ss := make([][]float64, 2), make([][]float64, 2)
		for r := range sl {
			sl[r], ss[r] = make([]float64, 5), make([]float64, 5)
			for p := range sl[r] {
				sl[r][p], ss[r][p] = rng.NormFloat64(), rng.NormFloat64()
			}
		}
		m.Params.ZeroGrad()
		if _, err := m.Backward(bg, b, o, sl, ss); err != nil {
			t.Fatal(err)
		}
		const h = 1e-5
		checked := 0
		for _, p := range m.Params.List {
			for k := 0; k < 3; k++ {
				i := rng.IntN(p.Len())
				if p.Name == "model.embed_tokens.weight" {
					i = rows[0][k]*cfg.HiddenSize + k // a row that is used
				}
				orig := p.At(i)
				p.Set(i, orig+h)
				up := surrogate(t, m, b, o, sl, ss)
				p.Set(i, orig-h)
				down := surrogate(t, m, b, o, sl, ss)
				p.Set(i, orig)
				fd := (up - down) / (2 * h)
				if diff := math.Abs(fd - p.Grad[i]); diff > 1e-6*math.Max(1, math.Abs(fd)) {
					t.Errorf("tied=%v score=%v %s[%d]: analytic %g, finite difference %g", tied, c.score, p.Name, i, p.Grad[i], fd)
				}
				checked++
			}
		}
		t.Logf("tied=%v: checked %d elements over %d parameters", tied, checked, len(m.Params.List))
	}
}

// TestFrozenParamsGetNoGradient checks that TrainLoRA leaves the base frozen
// and that in-place parameter updates reach the compiled graphs.
func TestFrozenParamsGetNoGradient(t *testing.T) {
	cfg := tinyConfig(true)
	m, err := New(cfg, randomWeights(cfg, 5), Options{LoRA: &LoRAConfig{R: 2, Alpha: 2}, Train: TrainLoRA})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range m.Params.List {
		if p.Trainable != isLoRA(p.Name) {
			t.Errorf("%s trainable=%v", p.Name, p.Trainable)
		}
	}
	b := Batch{IDs: [][]int{{1, 2, 3, 4}}}
	seed := [][]float64{{1, 1, 1, 0}}
	before, err := m.Backward(bg, b, RunOptions{}, seed, nil)
	if err != nil {
		t.Fatal(err)
	}
	bp := m.Params.Get(LoRAKeyB("model.layers.0.self_attn.q_proj"))
	var norm float64
	for _, g := range bp.Grad {
		norm += g * g
	}
	if norm == 0 {
		t.Fatal("lora_B got a zero gradient")
	}
	for i := range bp.F32() {
		bp.F32()[i] += 0.5 * float32(bp.Grad[i])
	}
	after, err := m.Forward(bg, b, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if after.LogP[0][2] == before.LogP[0][2] {
		t.Error("updating lora_B in place did not change the forward pass")
	}
}
