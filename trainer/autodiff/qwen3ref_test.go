//go:build !cuda

package autodiff

import (
	"math"
	"math/rand/v2"
	"testing"

	"mascot.dev/mascot/trainer/qwen3"
)

// TestForwardMatchesQwen3Reference checks the graph against trainer/qwen3's
// plain-Go reference forward on random tiny models, logits and score head.
func TestForwardMatchesQwen3Reference(t *testing.T) {
	for seed := uint64(1); seed <= 3; seed++ {
		cfg := tinyConfig(seed%2 == 0)
		cfg.HiddenAct = "silu"
		w := randomWeights(cfg, seed)
		ref, err := qwen3.New(cfg, w)
		if err != nil {
			t.Fatal(err)
		}
		m, err := New(cfg, w, Options{})
		if err != nil {
			t.Fatal(err)
		}
		rows := randomRows(rand.New(rand.NewPCG(seed, 1)), cfg.VocabSize, 9, 3)
		d := maxDiff(t, m, rows, func(ids []int) [][]float64 {
			lt, err := ref.Forward(ids)
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
		})
		if d > 1e-4 {
			t.Errorf("seed %d: graph logits differ from qwen3 reference by %g", seed, d)
		}
	}
}

func TestScoreMatchesQwen3Reference(t *testing.T) {
	cfg := tinyConfig(true)
	cfg.HiddenAct = "silu"
	w := randomWeights(cfg, 8)
	m, err := New(cfg, w, Options{ScoreHead: true, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	rcfg := cfg
	rcfg.Architectures = []string{qwen3.SequenceClassification}
	rcfg.NumLabels = 1
	pad := 0
	rcfg.PadTokenID = &pad
	ref, err := qwen3.New(rcfg, m.Weights())
	if err != nil {
		t.Fatal(err)
	}
	rows := [][]int{{3, 4, 5, 6, 7}, {8, 9, 10}}
	out, err := m.Forward(bg, Batch{IDs: rows}, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for r, row := range rows {
		want, err := ref.Score(row)
		if err != nil {
			t.Fatal(err)
		}
		if got := out.Score[r][len(row)-1]; math.Abs(got-float64(want[0])) > 1e-4 {
			t.Errorf("row %d: score %g, reference %g", r, got, want[0])
		}
	}
}
