package qwen3

import (
	"hash/fnv"
	"math/rand/v2"
	"sync"
)

// NewRandom builds a model with random weights: every matrix (embedding,
// projections, lm_head, score) drawn from N(0, 0.02²) as transformers'
// _init_weights does with initializer_range 0.02, every RMSNorm weight one.
// Each tensor has its own stream derived from seed and its name, so the
// result does not depend on map order or parallelism.
func NewRandom(cfg Config, seed uint64) (*Model, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	shapes := cfg.Shapes()
	w := make(Weights, len(shapes))
	for k, s := range shapes {
		w[k] = &Tensor{Shape: s, Data: make([]float32, numel(s))}
	}
	var wg sync.WaitGroup
	sem := make(chan struct{}, 4)
	for k, t := range w {
		if len(t.Shape) == 1 {
			for i := range t.Data {
				t.Data[i] = 1
			}
			continue
		}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			h := fnv.New64a()
			h.Write([]byte(k))
			r := rand.New(rand.NewPCG(seed, h.Sum64()))
			for i := range t.Data {
				t.Data[i] = float32(r.NormFloat64() * 0.02)
			}
		}()
	}
	wg.Wait()
	return New(cfg, w)
}
