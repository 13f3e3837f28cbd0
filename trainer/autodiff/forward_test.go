//go:build !cuda

package autodiff

import (
	"math"
	"math/rand/v2"
	"testing"
)

// maxDiff compares the graph logits of a batch with the reference forward
// of each unpadded row, over the real (non-pad) positions.
func maxDiff(t *testing.T, m *Model, rows [][]int, ref func(ids []int) [][]float64) float64 {
	t.Helper()
	out, err := m.Forward(bg, Batch{IDs: rows}, RunOptions{Logits: true})
	if err != nil {
		t.Fatal(err)
	}
	V := m.Config.VocabSize
	var worst float64
	for r, row := range rows {
		want := ref(row)
		for p := range row {
			for v := 0; v < V; v++ {
				got := float64(out.Logits[(r*out.T+p)*V+v])
				worst = math.Max(worst, math.Abs(got-want[p][v]))
			}
		}
	}
	return worst
}

func randomRows(rng *rand.Rand, V int, lens ...int) [][]int {
	rows := make([][]int, len(lens))
	for i, n := range lens {
		for range n {
			rows[i] = append(rows[i], rng.IntN(V))
		}
	}
	return rows
}

func TestForwardMatchesReference(t *testing.T) {
	for _, tied := range []bool{true, false} {
		cfg := tinyConfig(tied)
		w := randomWeights(cfg, 1)
		m, err := New(cfg, w, Options{})
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(3, 3))
		rows := randomRows(rng, cfg.VocabSize, 7, 4, 1)
		d := maxDiff(t, m, rows, func(ids []int) [][]float64 { l, _ := refForward(cfg, w, ids); return l })
		t.Logf("tied=%v max diff %g", tied, d)
		if d > 1e-4 {
			t.Errorf("tied=%v: graph logits differ from reference by %g", tied, d)
		}
	}
}

// TestLoRAForwardMatchesMerged checks the adapter branch against the
// reference forward over merged weights W + scaling·B·A.
func TestLoRAForwardMatchesMerged(t *testing.T) {
	cfg := tinyConfig(true)
	w := randomWeights(cfg, 2)
	for _, rs := range []bool{false, true} {
		lc := &LoRAConfig{R: 3, Alpha: 6, UseRSLoRA: rs, Targets: []string{"q_proj", "v_proj", "o_proj", "up_proj", "down_proj"}}
		m, err := New(cfg, w, Options{LoRA: lc, Train: TrainLoRA, Seed: 5})
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(9, 9))
		for _, p := range m.Params.Trainable() {
			for i := 0; i < p.Len(); i++ {
				p.Set(i, 0.2*rng.NormFloat64())
			}
		}
		merged := m.MergedWeights()
		rows := randomRows(rng, cfg.VocabSize, 6, 5)
		d := maxDiff(t, m, rows, func(ids []int) [][]float64 { l, _ := refForward(cfg, merged, ids); return l })
		if d > 1e-4 {
			t.Errorf("rslora=%v: LoRA logits differ from merged reference by %g", rs, d)
		}
		// adapter disabled = base model
		out, err := m.Forward(bg, Batch{IDs: rows}, RunOptions{DisableAdapter: true, Logits: true})
		if err != nil {
			t.Fatal(err)
		}
		want, _ := refForward(cfg, w, rows[0])
		if got := float64(out.Logits[3]); math.Abs(got-want[0][3]) > 1e-4 {
			t.Errorf("adapter disabled: logit %g, base reference %g", got, want[0][3])
		}
	}
}
