//go:build !cuda

package autodiff

import (
	"errors"
	"slices"
	"testing"

	"mascot.dev/mascot/trainer/loss"
)

// BackwardScores seeds the score gradient from the scores of its own pass:
// the scores it hands over are Forward's, its gradient is the finite
// difference gradient of the Bradley–Terry loss, and it equals Forward
// followed by Backward; an error from the seed function ends the pass.
func TestBackwardScoresEqualsForwardThenBackward(t *testing.T) {
	cfg := tinyConfig(true)
	cfg.NumHiddenLayers = 1
	b := Batch{IDs: [][]int{{1, 4, 6, 2, 9}, {3, 3, 8, 5}}, T: 5}
	m, err := New(cfg, randomWeights(cfg, 7), Options{Float64: true, LoRA: &LoRAConfig{R: 2, Alpha: 4}, Train: TrainLoRAAndScore, ScoreHead: true})
	if err != nil {
		t.Fatal(err)
	}
	seeds := func(score [][]float64) ([][]float64, float64, error) {
		r, err := loss.BradleyTerry([]float64{score[0][4]}, []float64{score[1][3]}, nil, 0.01)
		if err != nil {
			return nil, 0, err
		}
		s := [][]float64{make([]float64, b.T), make([]float64, b.T)}
		s[0][4], s[1][3] = r.DChosen[0], r.DRejected[0]
		return s, r.Loss, nil
	}
	fwd, err := m.Forward(bg, b, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	twoPass, _, err := seeds(fwd.Score)
	if err != nil {
		t.Fatal(err)
	}
	m.Params.ZeroGrad()
	if _, err := m.Backward(bg, b, RunOptions{}, nil, twoPass); err != nil {
		t.Fatal(err)
	}
	var want [][]float64
	for _, p := range m.Params.Trainable() {
		want = append(want, slices.Clone(p.Grad))
	}

	m.Params.ZeroGrad()
	var seen [][]float64
	out, err := m.BackwardScores(bg, b, RunOptions{}, func(score [][]float64) ([][]float64, error) {
		for _, r := range score {
			seen = append(seen, slices.Clone(r))
		}
		s, _, err := seeds(score)
		return s, err
	})
	if err != nil {
		t.Fatal(err)
	}
	for r := range fwd.Score {
		if !slices.Equal(seen[r], fwd.Score[r]) || !slices.Equal(out.Score[r], fwd.Score[r]) {
			t.Fatalf("row %d: seed function saw %v, outputs %v, Forward %v", r, seen[r], out.Score[r], fwd.Score[r])
		}
	}
	for i, p := range m.Params.Trainable() {
		if !slices.Equal(p.Grad, want[i]) {
			t.Fatalf("%s: one-pass gradient %v, Forward then Backward %v", p.Name, p.Grad, want[i])
		}
	}
	fdCheck(t, m, func() float64 {
		o, _ := m.Forward(bg, b, RunOptions{})
		_, l, _ := seeds(o.Score)
		return l
	})

	boom := errors.New("boom")
	if _, err := m.BackwardScores(bg, b, RunOptions{}, func([][]float64) ([][]float64, error) { return nil, boom }); !errors.Is(err, boom) {
		t.Fatalf("seed error: got %v", err)
	}
}
