package qwen3

import (
	"fmt"
	"slices"
)

// Adapter is a LoRA adapter applied on the fly: y = W·x + scale·B·(A·x).
// lora.Adapter implements it.
type Adapter interface {
	// Delta returns A [r, in], B [out, r] and the scaling for the base
	// weight key (e.g. "model.layers.0.self_attn.q_proj.weight"), or
	// ok=false when the adapter does not touch that weight.
	Delta(weightKey string) (a, b *Tensor, scale float32, ok bool)
}

type delta struct {
	a, b  *Tensor
	r     int
	scale float32
}

// WithAdapters returns a view of m that applies the given adapters (summed)
// on top of the shared base weights, without merging them. The view shares
// weights with m; m itself is unchanged. With no adapters it returns the
// base model view.
func (m *Model) WithAdapters(adapters ...Adapter) (*Model, error) {
	v := *m
	v.adapters = slices.Clone(adapters)
	v.layers = slices.Clone(m.layers)
	for i := range v.layers {
		l := &v.layers[i]
		for p := Proj(0); p < NumProj; p++ {
			l.lora[p] = nil
			sh := m.Config.ProjShape(p)
			for _, ad := range adapters {
				a, b, s, ok := ad.Delta(ProjKey(i, p))
				if !ok {
					continue
				}
				if len(a.Shape) != 2 || len(b.Shape) != 2 || a.Shape[1] != sh[1] || b.Shape[0] != sh[0] ||
					a.Shape[0] != b.Shape[1] || len(a.Data) != numel(a.Shape) || len(b.Data) != numel(b.Shape) {
					return nil, fmt.Errorf("applying adapter to %s: A %v and B %v do not fit [%d %d]",
						ProjKey(i, p), a.Shape, b.Shape, sh[0], sh[1])
				}
				l.lora[p] = append(l.lora[p], delta{a: a, b: b, r: a.Shape[0], scale: s})
			}
		}
	}
	return &v, nil
}

// Adapters returns the adapters this view applies.
func (m *Model) Adapters() []Adapter { return slices.Clone(m.adapters) }
