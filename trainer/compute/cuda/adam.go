package cuda

import (
	"math"

	"mascot.dev/mascot/trainer/compute"
)

// adamArgs are one AdamW step's scalars as k_adamw takes them.
type adamArgs struct {
	b1, b2, c1, c2, eps, decay, step, bc2, gscale float32
}

// adamScalars forms the step's scalars in float64 and rounds each to
// float32 once, as the CPU backend does, so the two backends run the same
// float32 element-wise update: decay = 1 − lr·wd, step = lr/(1 − β1^t),
// bc2 = sqrt(1 − β2^t); GradScale 0 means 1.
func adamScalars(a compute.Adam) adamArgs {
	gs := a.GradScale
	if gs == 0 {
		gs = 1
	}
	t := float64(a.Step)
	return adamArgs{
		b1: float32(a.Beta1), b2: float32(a.Beta2),
		c1: float32(1 - a.Beta1), c2: float32(1 - a.Beta2),
		eps:    float32(a.Eps),
		decay:  float32(1 - a.LR*a.WeightDecay),
		step:   float32(a.LR / (1 - math.Pow(a.Beta1, t))),
		bc2:    float32(math.Sqrt(1 - math.Pow(a.Beta2, t))),
		gscale: float32(gs),
	}
}
