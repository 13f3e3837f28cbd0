//go:build !cuda

package autodiff

import (
	"math"
	"math/rand/v2"
	"testing"

	"mascot.dev/mascot/trainer/loss"
)

// TestLossChainMatchesFiniteDifferences checks the seeded-surrogate
// contract end to end in float64: the gradient Backward produces from a
// loss's seeds equals the finite-difference gradient of the loss of the
// model's outputs, for GRPO (clipping, KL, temperature) on log-probs and
// Bradley–Terry on scores.
func TestLossChainMatchesFiniteDifferences(t *testing.T) {
	cfg := tinyConfig(true)
	cfg.NumHiddenLayers = 1
	rows := [][]int{{1, 4, 6, 2, 9}, {3, 3, 8, 5}}
	b := Batch{IDs: rows, T: 5}
	rng := rand.New(rand.NewPCG(21, 22))

	t.Run("grpo", func(t *testing.T) {
		m, err := New(cfg, randomWeights(cfg, 6), Options{Float64: true, LoRA: &LoRAConfig{R: 2, Alpha: 4}, Train: TrainLoRA})
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range m.Params.Trainable() {
			for i := 0; i < p.Len(); i++ {
				p.Set(i, p.At(i)+0.2*rng.NormFloat64())
			}
		}
		ro := RunOptions{Temperature: 0.8}
		ref, _ := m.Forward(bg, b, RunOptions{Temperature: 0.8, DisableAdapter: true})
		cur, _ := m.Forward(bg, b, ro)
		old := make([][]float64, 2)
		for r := range old {
			old[r] = make([]float64, 5)
			for t := range old[r] {
				old[r][t] = cur.LogP[r][t] + 0.2*rng.NormFloat64()
			}
		}
		mask := [][]float64{{0, 1, 1, 1, 0}, {0, 0, 1, 0, 0}}
		cfgL := loss.GRPOConfig{Beta: 0.1, Epsilon: 0.2, LossType: loss.LossBNPO}
		lossAt := func() (loss.GRPOResult, error) {
			out, err := m.Forward(bg, b, ro)
			if err != nil {
				return loss.GRPOResult{}, err
			}
			return loss.GRPO(cfgL, loss.GRPOInput{LogP: out.LogP, OldLogP: old, RefLogP: ref.LogP, Mask: mask, Advantages: []float64{0.9, -1.1}})
		}
		res, err := lossAt()
		if err != nil {
			t.Fatal(err)
		}
		m.Params.ZeroGrad()
		if _, err := m.Backward(bg, b, ro, res.DLogP, nil); err != nil {
			t.Fatal(err)
		}
		fdCheck(t, m, func() float64 { r, _ := lossAt(); return r.Loss })
	})

	t.Run("bradley-terry", func(t *testing.T) {
		m, err := New(cfg, randomWeights(cfg, 7), Options{Float64: true, LoRA: &LoRAConfig{R: 2, Alpha: 4}, Train: TrainLoRAAndScore, ScoreHead: true})
		if err != nil {
			t.Fatal(err)
		}
		lossAt := func() (loss.BTResult, *Outputs) {
			out, _ := m.Forward(bg, b, RunOptions{})
			r, _ := loss.BradleyTerry([]float64{out.Score[0][4]}, []float64{out.Score[1][3]}, nil, 0.01)
			return r, out
		}
		res, out := lossAt()
		seed := [][]float64{make([]float64, out.T), make([]float64, out.T)}
		seed[0][4], seed[1][3] = res.DChosen[0], res.DRejected[0]
		m.Params.ZeroGrad()
		if _, err := m.Backward(bg, b, RunOptions{}, nil, seed); err != nil {
			t.Fatal(err)
		}
		fdCheck(t, m, func() float64 { r, _ := lossAt(); return r.Loss })
	})
}

// fdCheck compares Param.Grad with central differences of f on a few
// elements of every trainable parameter.
func fdCheck(t *testing.T, m *Model, f func() float64) {
	t.Helper()
	const h = 1e-5
	for _, p := range m.Params.Trainable() {
		for _, i := range []int{0, p.Len() / 2, p.Len() - 1} {
			o := p.At(i)
			p.Set(i, o+h)
			up := f()
			p.Set(i, o-h)
			down := f()
			p.Set(i, o)
			fd := (up - down) / (2 * h)
			if math.Abs(fd-p.Grad[i]) > 1e-6*math.Max(1, math.Abs(fd)) {
				t.Errorf("%s[%d]: analytic %g, finite difference %g", p.Name, i, p.Grad[i], fd)
			}
		}
	}
}
