package cpu

import (
	"math"

	"mascot.dev/mascot/trainer/compute"
)

// AdamW implements compute.Backend with torch.optim.AdamW's arithmetic
// (amsgrad off): param ·= 1 − lr·wd; m = β1·m + (1−β1)·g; v = β2·v +
// (1−β2)·g²; param −= lr/(1−β1^t) · m / (sqrt(v)/sqrt(1−β2^t) + eps),
// with g = grad·GradScale. Scalars are formed in float64 and rounded to
// float32 once; the element-wise work is float32 as torch's is.
func (b *Backend) AdamW(param, grad, m, v compute.Tensor, a compute.Adam) {
	const op = "AdamW"
	P := b.arg(op, "param", param, 0, compute.F32)
	if P == nil {
		return
	}
	G := b.exact(op, "grad", grad, P.n, compute.F32)
	M := b.exact(op, "m", m, P.n, compute.F32)
	V := b.exact(op, "v", v, P.n, compute.F32)
	if G == nil || M == nil || V == nil {
		return
	}
	if a.Step < 1 {
		b.fail(op, "step %d (1-based)", a.Step)
		return
	}
	gs := a.GradScale
	if gs == 0 {
		gs = 1
	}
	decay := float32(1 - a.LR*a.WeightDecay)
	b1, b2 := float32(a.Beta1), float32(a.Beta2)
	c1, c2 := float32(1-a.Beta1), float32(1-a.Beta2)
	stepSize := float32(a.LR / (1 - math.Pow(a.Beta1, float64(a.Step))))
	bc2 := float32(math.Sqrt(1 - math.Pow(a.Beta2, float64(a.Step))))
	eps, scale := float32(a.Eps), float32(gs)
	ps, g, ms, vs := P.f32(), G.f32(), M.f32(), V.f32()
	b.parallelFor(len(ps), elemGrain, func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			gi := g[i] * scale
			mi := b1*ms[i] + c1*gi
			vi := b2*vs[i] + c2*gi*gi
			ms[i], vs[i] = mi, vi
			ps[i] = ps[i]*decay - stepSize*mi/(sqrt32(vi)/bc2+eps)
		}
	})
}

func sqrt32(x float32) float32 { return float32(math.Sqrt(float64(x))) }
