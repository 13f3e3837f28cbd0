package cpu

import (
	"math"

	"mascot.dev/mascot/trainer/compute"
)

// attnArgs are the checked slices of one Attn.
type attnArgs struct {
	q, k, v, out, lse []float32
	lens              []int32
	B, T, H, KV, D    int
	scale             float32
}

// checkAttn validates a against its buffers and the extra gradient
// tensors (name, tensor, length pairs), returning nil after recording an
// error.
func (b *Backend) checkAttn(op string, a compute.Attn) *attnArgs {
	if b.err != nil {
		return nil
	}
	if a.B <= 0 || a.T <= 0 || a.H <= 0 || a.KV <= 0 || a.D <= 0 || a.H%a.KV != 0 {
		b.fail(op, "B=%d T=%d H=%d KV=%d D=%d (positive, H a multiple of KV)", a.B, a.T, a.H, a.KV, a.D)
		return nil
	}
	nq, nkv := a.B*a.T*a.H*a.D, a.B*a.T*a.KV*a.D
	Q := b.arg(op, "Q", a.Q, nq, compute.F32)
	K := b.arg(op, "K", a.K, nkv, compute.F32)
	V := b.arg(op, "V", a.V, nkv, compute.F32)
	O := b.arg(op, "Out", a.Out, nq, compute.F32)
	L := b.arg(op, "LSE", a.LSE, a.B*a.H*a.T, compute.F32)
	N := b.arg(op, "Lens", a.Lens, a.B, compute.I32)
	if Q == nil || K == nil || V == nil || O == nil || L == nil || N == nil {
		return nil
	}
	lens := N.i32()[:a.B]
	for i, l := range lens {
		if l < 1 || int(l) > a.T {
			b.fail(op, "Lens[%d] = %d is outside 1..T = %d", i, l, a.T)
			return nil
		}
	}
	return &attnArgs{q: Q.f32(), k: K.f32(), v: V.f32(), out: O.f32(), lse: L.f32(), lens: lens,
		B: a.B, T: a.T, H: a.H, KV: a.KV, D: a.D, scale: a.Scale}
}

// keys is how many keys query t of a row of length l attends to.
func keys(t, l int) int { return min(t+1, l) }

// Attention implements compute.Backend.
func (b *Backend) Attention(a compute.Attn) {
	x := b.checkAttn("Attention", a)
	if x == nil {
		return
	}
	B, T, H, KV, D := x.B, x.T, x.H, x.KV, x.D
	g := H / KV
	b.parallelFor(B*H, 1, func(_, lo, hi int) {
		s := make([]float32, T)
		acc := make([]float64, D)
		for bh := lo; bh < hi; bh++ {
			bi, h := bh/H, bh%H
			kh := h / g
			l := int(x.lens[bi])
			for t := 0; t < T; t++ {
				q := x.q[((bi*T+t)*H+h)*D:][:D]
				nk := keys(t, l)
				mx := float32(math.Inf(-1))
				for j := 0; j < nk; j++ {
					kr := x.k[((bi*T+j)*KV+kh)*D:][:D]
					var d float32
					for e := range q {
						d += q[e] * kr[e]
					}
					s[j] = d * x.scale
					mx = max(mx, s[j])
				}
				var sum float64
				for j := 0; j < nk; j++ {
					sum += math.Exp(float64(s[j] - mx))
				}
				lse := float32(float64(mx) + math.Log(sum))
				x.lse[(bi*H+h)*T+t] = lse
				clear(acc)
				for j := 0; j < nk; j++ {
					p := math.Exp(float64(s[j] - lse))
					vr := x.v[((bi*T+j)*KV+kh)*D:][:D]
					for e := range acc {
						acc[e] += p * float64(vr[e])
					}
				}
				o := x.out[((bi*T+t)*H+h)*D:][:D]
				for e := range o {
					o[e] = float32(acc[e])
				}
			}
		}
	})
}

// AttentionBackward implements compute.Backend. Threads split the (row,
// kv head) pairs, so each dK and dV row is summed by one thread, over the
// group's query heads and the queries in order.
func (b *Backend) AttentionBackward(a compute.Attn, dOut, dQ, dK, dV compute.Tensor) {
	const op = "AttentionBackward"
	x := b.checkAttn(op, a)
	if x == nil {
		return
	}
	B, T, H, KV, D := x.B, x.T, x.H, x.KV, x.D
	nq, nkv := B*T*H*D, B*T*KV*D
	DO := b.arg(op, "dOut", dOut, nq, compute.F32)
	DQ := b.arg(op, "dQ", dQ, nq, compute.F32)
	DK := b.arg(op, "dK", dK, nkv, compute.F32)
	DV := b.arg(op, "dV", dV, nkv, compute.F32)
	if DO == nil || DQ == nil || DK == nil || DV == nil {
		return
	}
	do, dq, dk, dv := DO.f32(), DQ.f32(), DK.f32(), DV.f32()
	g := H / KV
	b.parallelFor(B*KV, 1, func(_, lo, hi int) {
		ds := make([]float32, T)
		for bk := lo; bk < hi; bk++ {
			bi, kh := bk/KV, bk%KV
			l := int(x.lens[bi])
			for j := 0; j < T; j++ {
				clear(dk[((bi*T+j)*KV+kh)*D:][:D])
				clear(dv[((bi*T+j)*KV+kh)*D:][:D])
			}
			for h := kh * g; h < (kh+1)*g; h++ {
				for t := 0; t < T; t++ {
					row := ((bi*T+t)*H + h) * D
					q, o, dor, dqr := x.q[row:][:D], x.out[row:][:D], do[row:][:D], dq[row:][:D]
					lse := x.lse[(bi*H+h)*T+t]
					var delta float32
					for e := range o {
						delta += o[e] * dor[e]
					}
					nk := keys(t, l)
					for j := 0; j < nk; j++ {
						kr := x.k[((bi*T+j)*KV+kh)*D:][:D]
						vr := x.v[((bi*T+j)*KV+kh)*D:][:D]
						var sc, dp float32
						for e := range q {
							sc += q[e] * kr[e]
							dp += dor[e] * vr[e]
						}
						p := float32(math.Exp(float64(sc*x.scale - lse)))
						ds[j] = p * (dp - delta)
						dvr := dv[((bi*T+j)*KV+kh)*D:][:D]
						for e := range dvr {
							dvr[e] += p * dor[e]
						}
					}
					clear(dqr)
					for j := 0; j < nk; j++ {
						kr := x.k[((bi*T+j)*KV+kh)*D:][:D]
						dkr := dk[((bi*T+j)*KV+kh)*D:][:D]
						c := ds[j] * x.scale
						for e := range dqr {
							dqr[e] += c * kr[e]
							dkr[e] += c * q[e]
						}
					}
				}
			}
		}
	})
}
