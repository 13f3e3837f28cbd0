//go:build !cuda

package net

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"mascot.dev/mascot/trainer/autodiff"
	"mascot.dev/mascot/trainer/pass"
	"mascot.dev/mascot/trainer/qwen3"
)

// pair is the same model twice: trainer/autodiff's graph (float32, the
// path verified against torch) and this network on the CPU backend.
type pair struct {
	t  *testing.T
	ad *autodiff.Model
	nm *Model
}

func newPair(t *testing.T, cfg qwen3.Config, w qwen3.Weights, o Options) *pair {
	t.Helper()
	ad, err := autodiff.New(cfg, w, autodiff.Options{LoRA: o.LoRA, Train: o.Train, ScoreHead: o.ScoreHead, Seed: o.Seed, InitLoRA: o.InitLoRA})
	if err != nil {
		t.Fatal(err)
	}
	nm, err := New(newCPU(t, 2), cfg, FromWeights(w), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ad.Close(); nm.Close() })
	return &pair{t: t, ad: ad, nm: nm}
}

// near fails unless |a−b| ≤ tol·max(1, scale).
func (p *pair) near(what string, a, b, scale float64) {
	p.t.Helper()
	if d := math.Abs(a - b); !(d <= 1e-4*math.Max(1, scale)) {
		p.t.Fatalf("%s: net %.7g, autodiff %.7g (|Δ| %.2g)", what, a, b, d)
	}
}

// outputs compares the wanted positions of two passes' outputs.
func (p *pair) outputs(what string, rows [][]int, got, want *pass.Outputs, o pass.RunOptions) {
	p.t.Helper()
	for r, row := range rows {
		for t := range row {
			if got.LogP != nil && t < len(row)-1 {
				g, w := got.LogP[r][t], want.LogP[r][t]
				if o.LogPFrom != nil && t < o.LogPFrom[r] {
					w = 0
				}
				p.near(fmt.Sprintf("%s logp[%d][%d]", what, r, t), g, w, math.Abs(w))
			}
			if got.Score != nil && (o.ScoreAt == nil || o.ScoreAt[r] == t) {
				p.near(fmt.Sprintf("%s score[%d][%d]", what, r, t), got.Score[r][t], want.Score[r][t], math.Abs(want.Score[r][t]))
			}
		}
	}
}

// grads compares every trainable gradient (autodiff's in its internal
// layout, transposed back to Hugging Face's) and zeroes both.
func (p *pair) grads(what string) {
	p.t.Helper()
	ps := p.ad.Params.Trainable()
	nps := p.nm.TrainParams()
	if len(ps) != len(nps) {
		p.t.Fatalf("%s: %d trainable parameters in autodiff, %d in net", what, len(ps), len(nps))
	}
	for i, ap := range ps {
		np := nps[i]
		if ap.Name != np.Name {
			p.t.Fatalf("%s: parameter %d is %s in autodiff, %s in net", what, i, ap.Name, np.Name)
		}
		g := download(p.nm.be, np.Grad)
		want := ap.Grad
		if ap.Transposed {
			rows, cols := ap.Shape[0], ap.Shape[1]
			hf := make([]float64, len(want))
			for r := range rows {
				for c := range cols {
					hf[c*rows+r] = want[r*cols+c]
				}
			}
			want = hf
		}
		scale, nonzero := 0.0, false
		for _, v := range want {
			scale = math.Max(scale, math.Abs(v))
		}
		for j := range want {
			p.near(fmt.Sprintf("%s grad %s[%d]", what, ap.Name, j), float64(g[j]), want[j], scale)
			nonzero = nonzero || g[j] != 0
		}
		if !nonzero && scale > 0 {
			p.t.Fatalf("%s: net's gradient of %s is all zero", what, ap.Name)
		}
		p.nm.be.Zero(np.Grad)
	}
	p.ad.Params.ZeroGrad()
}

// The network equals trainer/autodiff (float32) on random configs — GQA,
// tied and untied heads, padded rows, LoRA on all seven projections with
// dropout, rsLoRA, temperature, the score head, and every weight trained —
// within 1e-4 for outputs and gradients, with rows split into several
// groups, head calls cut into chunks, and activations kept or recomputed.
func TestNetEqualsAutodiff(t *testing.T) {
	for seed := uint64(1); seed <= 4; seed++ {
		rng := rand.New(rand.NewPCG(seed, 1))
		cfg := randomConfig(rng, seed%2 == 0)
		w := randomWeights(cfg, seed)
		lc := &pass.LoRAConfig{R: 2 + rng.IntN(3), Alpha: 5, Dropout: 0.25, UseRSLoRA: seed%3 == 0}
		init := randomAdapter(cfg, *lc, seed)
		rows := randomRows(rng, cfg.VocabSize, 7, 4, 6, 2)
		for _, c := range []struct {
			name  string
			train pass.Trainable
			score bool
			keep  bool
			chunk int
		}{
			{"lora", pass.TrainLoRA, false, false, 8},
			{"lora-keep", pass.TrainLoRA, false, true, 1000},
			{"all", pass.TrainAll, false, false, 6},
			{"score", pass.TrainLoRAAndScore, true, false, 8},
			{"score-all-keep", pass.TrainAll, true, true, 5},
		} {
			t.Run(fmt.Sprintf("seed%d/%s", seed, c.name), func(t *testing.T) {
				p := newPair(t, cfg, w, Options{LoRA: lc, Train: c.train, ScoreHead: c.score, Seed: seed, InitLoRA: init,
					KeepActivations: c.keep, ChunkTokens: c.chunk, HeadRows: 3})
				b := pass.Batch{IDs: rows}
				if !c.score {
					lmCase(t, p, b)
				} else {
					scoreCase(t, p, b)
				}
			})
		}
	}
}

func lmCase(t *testing.T, p *pair, b pass.Batch) {
	rng := rand.New(rand.NewPCG(5, 5))
	for _, o := range []pass.RunOptions{
		{Temperature: 0.8},
		{DisableAdapter: true},
		{LogPFrom: []int{2, 0, 3, 1}},
	} {
		got, err := p.nm.Forward(bg, b, o)
		if err != nil {
			t.Fatal(err)
		}
		want, err := p.ad.Forward(bg, b, o)
		if err != nil {
			t.Fatal(err)
		}
		p.outputs(fmt.Sprintf("forward %+v", o), b.IDs, got, want, o)
	}
	seed := make([][]float64, len(b.IDs))
	for r, row := range b.IDs {
		seed[r] = make([]float64, len(row))
		for i := range seed[r] {
			seed[r][i] = rng.NormFloat64()
		}
	}
	o := pass.RunOptions{Temperature: 0.8, Dropout: true, DropoutSeed: 99}
	got, err := p.nm.Backward(bg, b, o, seed, nil)
	if err != nil {
		t.Fatal(err)
	}
	want, err := p.ad.Backward(bg, b, o, seed, nil)
	if err != nil {
		t.Fatal(err)
	}
	p.outputs("backward", b.IDs, got, want, o)
	p.grads("backward")
}

func scoreCase(t *testing.T, p *pair, b pass.Batch) {
	at := make([]int, len(b.IDs))
	for r, row := range b.IDs {
		at[r] = len(row) - 1
	}
	// Seeds that depend on the scores: the surrogate ½Σ score² at the
	// pooled token, differentiated.
	seedFn := func(sc [][]float64) ([][]float64, error) {
		s := make([][]float64, len(sc))
		for r := range sc {
			s[r] = make([]float64, len(sc[r]))
			s[r][at[r]] = sc[r][at[r]]
		}
		return s, nil
	}
	o := pass.RunOptions{ScoreAt: at}
	got, err := p.nm.BackwardScores(bg, b, o, seedFn)
	if err != nil {
		t.Fatal(err)
	}
	want, err := p.ad.BackwardScores(bg, b, o, seedFn)
	if err != nil {
		t.Fatal(err)
	}
	p.outputs("backward scores", b.IDs, got, want, o)
	p.grads("backward scores")
	// Fixed seeds at every position, with dropout.
	rng := rand.New(rand.NewPCG(6, 6))
	seed := make([][]float64, len(b.IDs))
	for r, row := range b.IDs {
		seed[r] = make([]float64, len(row))
		for i := range seed[r] {
			seed[r][i] = rng.NormFloat64()
		}
	}
	o = pass.RunOptions{Dropout: true, DropoutSeed: 7}
	if got, err = p.nm.Backward(bg, b, o, nil, seed); err != nil {
		t.Fatal(err)
	}
	if want, err = p.ad.Backward(bg, b, o, nil, seed); err != nil {
		t.Fatal(err)
	}
	p.outputs("backward", b.IDs, got, want, o)
	p.grads("backward")
}
