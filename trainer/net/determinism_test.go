package net

import (
	"math"
	"math/rand/v2"
	"testing"

	"mascot.dev/mascot/trainer/pass"
)

// Two identical backward passes on two models give bit-identical
// gradients and outputs for a given thread count, whether the rows run as
// one group or several.
func TestBackwardIsDeterministic(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	cfg := randomConfig(rng, false)
	w := randomWeights(cfg, 3)
	rows := randomRows(rng, cfg.VocabSize, 9, 5, 7)
	seed := make([][]float64, len(rows))
	for r, row := range rows {
		seed[r] = make([]float64, len(row))
		for i := range seed[r] {
			seed[r][i] = rng.NormFloat64()
		}
	}
	for _, threads := range []int{1, 2, 3} {
		for _, chunk := range []int{6, 1000} {
			var grads [2][][]float32
			var logp [2][][]float64
			for i := range grads {
				m, err := New(newCPU(t, threads), cfg, FromWeights(w), Options{LoRA: &pass.LoRAConfig{R: 3, Alpha: 6, Dropout: 0.2},
					Train: pass.TrainAll, Seed: 4, ChunkTokens: chunk})
				if err != nil {
					t.Fatal(err)
				}
				out, err := m.Backward(bg, pass.Batch{IDs: rows}, pass.RunOptions{Dropout: true, DropoutSeed: 5, Temperature: 0.9}, seed, nil)
				if err != nil {
					t.Fatal(err)
				}
				logp[i] = out.LogP
				for _, p := range m.TrainParams() {
					grads[i] = append(grads[i], download(m.be, p.Grad))
				}
				m.Close()
			}
			for r := range logp[0] {
				for j := range logp[0][r] {
					if math.Float64bits(logp[0][r][j]) != math.Float64bits(logp[1][r][j]) {
						t.Fatalf("threads %d chunk %d: logp[%d][%d] %v vs %v", threads, chunk, r, j, logp[0][r][j], logp[1][r][j])
					}
				}
			}
			for k := range grads[0] {
				for j := range grads[0][k] {
					if math.Float32bits(grads[0][k][j]) != math.Float32bits(grads[1][k][j]) {
						t.Fatalf("threads %d chunk %d: parameter %d gradient %d differs: %v vs %v", threads, chunk, k, j, grads[0][k][j], grads[1][k][j])
					}
				}
			}
		}
	}
}
