package cpu

import (
	"math"

	"mascot.dev/mascot/trainer/compute"
)

// headArgs are the checked slices of one LMHead.
type headArgs struct {
	hidden, logp, lse []float32
	head              *tensor
	targets           []int32
	N, D, V           int
	invTemp           float32
}

func (b *Backend) checkHead(op string, h compute.LMHead) *headArgs {
	if b.err != nil {
		return nil
	}
	if h.N < 0 || h.D <= 0 || h.V <= 0 {
		b.fail(op, "N=%d D=%d V=%d", h.N, h.D, h.V)
		return nil
	}
	X := b.arg(op, "Hidden", h.Hidden, h.N*h.D, compute.F32)
	W := b.arg(op, "Head", h.Head, h.V*h.D, compute.F32, compute.BF16)
	T := b.arg(op, "Targets", h.Targets, h.N, compute.I32)
	P := b.arg(op, "LogP", h.LogP, h.N, compute.F32)
	L := b.arg(op, "LSE", h.LSE, h.N, compute.F32)
	if X == nil || W == nil || T == nil || P == nil || L == nil {
		return nil
	}
	ts := T.i32()[:h.N]
	for i, t := range ts {
		if int(t) >= h.V {
			b.fail(op, "Targets[%d] = %d is not below V = %d", i, t, h.V)
			return nil
		}
	}
	return &headArgs{hidden: X.f32(), logp: P.f32(), lse: L.f32(), head: W, targets: ts, N: h.N, D: h.D, V: h.V, invTemp: h.InvTemp}
}

// headRow returns row j of the head as float32 (widening BF16 into buf).
func (x *headArgs) headRow(j int, buf []float32) []float32 {
	if x.head.dt == compute.F32 {
		return x.head.f32()[j*x.D:][:x.D]
	}
	fromBF16Slice(buf, x.head.b16()[j*x.D:][:x.D])
	return buf
}

func (x *headArgs) logit(i, j int, buf []float32) float32 {
	h, w := x.hidden[i*x.D:][:x.D], x.headRow(j, buf)
	var s float32
	for e := range h {
		s += h[e] * w[e]
	}
	return s * x.invTemp
}

// LogProbs implements compute.Backend. Rows without a target get LogP 0
// and LSE 0.
func (b *Backend) LogProbs(h compute.LMHead) {
	x := b.checkHead("LogProbs", h)
	if x == nil {
		return
	}
	b.parallelFor(x.N, 1, func(_, lo, hi int) {
		buf := make([]float32, x.D)
		z := make([]float32, x.V)
		for i := lo; i < hi; i++ {
			t := int(x.targets[i])
			if t < 0 {
				x.logp[i], x.lse[i] = 0, 0
				continue
			}
			mx := float32(math.Inf(-1))
			for j := range z {
				z[j] = x.logit(i, j, buf)
				mx = max(mx, z[j])
			}
			var sum float64
			for _, v := range z {
				sum += math.Exp(float64(v - mx))
			}
			lse := float32(float64(mx) + math.Log(sum))
			x.lse[i], x.logp[i] = lse, z[t]-lse
		}
	})
}

// LogProbsBackward implements compute.Backend.
func (b *Backend) LogProbsBackward(h compute.LMHead, seed, dHidden, dHead compute.Tensor) {
	const op = "LogProbsBackward"
	x := b.checkHead(op, h)
	if x == nil {
		return
	}
	S := b.arg(op, "seed", seed, x.N, compute.F32)
	DH := b.arg(op, "dHidden", dHidden, x.N*x.D, compute.F32)
	var DW *tensor
	if dHead != nil {
		DW = b.arg(op, "dHead", dHead, x.V*x.D, compute.F32)
	}
	if S == nil || DH == nil || (dHead != nil && DW == nil) {
		return
	}
	sd, dh := S.f32(), DH.f32()
	// coef is ∂/∂logit_ij of seed_i·logp_i, times invTemp.
	coef := func(i, j int, buf []float32) float32 {
		t := int(x.targets[i])
		p := float32(math.Exp(float64(x.logit(i, j, buf) - x.lse[i])))
		if j == t {
			p--
		}
		return -p * sd[i] * x.invTemp
	}
	b.parallelFor(x.N, 1, func(_, lo, hi int) {
		buf := make([]float32, x.D)
		for i := lo; i < hi; i++ {
			if x.targets[i] < 0 {
				continue
			}
			d := dh[i*x.D:][:x.D]
			for j := 0; j < x.V; j++ {
				c := coef(i, j, buf)
				w := x.headRow(j, buf)
				for e := range d {
					d[e] += c * w[e]
				}
			}
		}
	})
	if DW == nil {
		return
	}
	dw := DW.f32()
	b.parallelFor(x.V, 1, func(_, lo, hi int) {
		buf := make([]float32, x.D)
		for j := lo; j < hi; j++ {
			d := dw[j*x.D:][:x.D]
			for i := 0; i < x.N; i++ {
				if x.targets[i] < 0 {
					continue
				}
				c := coef(i, j, buf)
				hr := x.hidden[i*x.D:][:x.D]
				for e := range d {
					d[e] += c * hr[e]
				}
			}
		}
	})
}
