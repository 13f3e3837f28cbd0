package lora

import (
	"fmt"
	"slices"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"

	"mascot.dev/mascot/trainer/qwen3"
)

// Merge returns base with W' = W + scaling·(B·A) for every adapted weight.
// Adapted tensors are fresh copies; the others are shared with base, which
// is not modified.
func Merge(base qwen3.Weights, m qwen3.Config, a *Adapter) (qwen3.Weights, error) {
	if err := a.Check(m); err != nil {
		return nil, fmt.Errorf("merging adapter: %w", err)
	}
	projs, _ := a.Config.Projs()
	out := make(qwen3.Weights, len(base))
	for k, t := range base {
		out[k] = t
	}
	s := a.Config.Scaling()
	r := a.Config.R
	for i := 0; i < m.NumHiddenLayers; i++ {
		for _, p := range projs {
			key := qwen3.ProjKey(i, p)
			w, ok := base[key]
			if !ok {
				return nil, fmt.Errorf("merging adapter: base weight %q is missing", key)
			}
			sh := m.ProjShape(p)
			if !slices.Equal(w.Shape, sh[:]) {
				return nil, fmt.Errorf("merging adapter: base weight %q has shape %v, want %v", key, w.Shape, sh)
			}
			merged := &qwen3.Tensor{Shape: slices.Clone(w.Shape), Data: slices.Clone(w.Data)}
			A, B := a.A(i, p), a.B(i, p)
			blas32.Gemm(blas.NoTrans, blas.NoTrans, s,
				blas32.General{Rows: sh[0], Cols: r, Stride: r, Data: B.Data},
				blas32.General{Rows: r, Cols: sh[1], Stride: sh[1], Data: A.Data},
				1, blas32.General{Rows: sh[0], Cols: sh[1], Stride: sh[1], Data: merged.Data})
			out[key] = merged
		}
	}
	return out, nil
}

// MergeModel returns a new model with the adapter merged into base's weights.
func MergeModel(base *qwen3.Model, a *Adapter) (*qwen3.Model, error) {
	w, err := Merge(base.Weights, base.Config, a)
	if err != nil {
		return nil, err
	}
	return qwen3.New(base.Config, w)
}
