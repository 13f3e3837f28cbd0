//go:build !cuda

package train

import (
	"mascot.dev/mascot/trainer/autodiff"
	"mascot.dev/mascot/trainer/pass"
	"mascot.dev/mascot/trainer/qwen3"
)

var _ Network = (*autodiff.Model)(nil)

// newAutodiff builds trainer/autodiff's gorgonia graph over the base (the
// cross-check network). Builds with -tags cuda leave it out: the tag
// would also build gorgonia's own CUDA path, which needs CUDA's headers.
func newAutodiff(o Options, base baseSource, cfg qwen3.Config, train pass.Trainable, score bool) (Network, error) {
	w := qwen3.Weights(nil)
	if base.model != nil {
		w = base.model.Weights
	} else {
		m, err := qwen3.Load(base.dir)
		if err != nil {
			return nil, err
		}
		w = m.Weights
	}
	return autodiff.New(cfg, w, autodiff.Options{LoRA: o.LoRA, Train: train, ScoreHead: score, Seed: o.Seed, InitLoRA: o.InitAdapter})
}
