package cpu

import "mascot.dev/mascot/trainer/compute"

// AliasF32 returns an F32 tensor whose elements are data's, not a copy:
// trainer/net keeps frozen float32 weights that a qwen3.Model (the GRPO
// sampler's) already holds without a second copy, and trainer/autodiff
// exposes its parameters to the optimizer this way. Writes through the
// tensor change data. MemoryInUse does not count it, and it must not be
// passed to Free (the caller owns data).
func (b *Backend) AliasF32(data []float32) compute.Tensor {
	return &tensor{dt: compute.F32, st: &storage{owner: b, f: data}, n: len(data), view: true}
}
