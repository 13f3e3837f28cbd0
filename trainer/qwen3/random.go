package qwen3

import (
	"hash/fnv"
	"maps"
	"math/rand/v2"
	"slices"
	"sync"

	"mascot.dev/mascot/internal/hugemem"
)

// NewRandom builds a model with random weights: every matrix (embedding,
// projections, lm_head, score) drawn from N(0, 0.02²) as transformers'
// _init_weights does with initializer_range 0.02, every RMSNorm weight one.
// Each tensor has its own stream derived from seed and its name, so the
// result does not depend on map order or parallelism. The tensors share
// one slab the kernel may back with 2 MB pages (internal/hugemem).
func NewRandom(cfg Config, seed uint64) (*Model, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	shapes := cfg.Shapes()
	w := make(Weights, len(shapes))
	total := 0
	for _, s := range shapes {
		total += numel(s)
	}
	slab := hugemem.Floats(total)
	for _, k := range slices.Sorted(maps.Keys(shapes)) { // one layout, whatever the map's order
		n := numel(shapes[k])
		w[k] = &Tensor{Shape: shapes[k], Data: slab[:n:n]}
		slab = slab[n:]
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
