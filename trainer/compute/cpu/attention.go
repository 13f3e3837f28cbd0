package cpu

import "mascot.dev/mascot/trainer/compute"

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

// groupRows copies the rows of tokens t0..t0+mq of the g heads of kv
// head kh out of a [B·T, H·D] tensor into dst, stacked head by head
// (row hl·mq + t), or back when out is set.
func groupRows(dst, src []float32, bi, t0, mq, kh, g, T, H, D int, out bool) {
	for hl := 0; hl < g; hl++ {
		for t := 0; t < mq; t++ {
			d, s := dst[(hl*mq+t)*D:][:D], src[((bi*T+t0+t)*H+kh*g+hl)*D:][:D]
			if out {
				copy(s, d)
			} else {
				copy(d, s)
			}
		}
	}
}

// Attention implements compute.Backend, blocked over queries with the
// query heads of a kv group stacked: for each (row, kv head, block of
// Blocks.AttnQ queries) the group's g query rows are copied into one
// [g·AttnQ, D] matrix, one sgemm forms their scaled scores against the
// keys up to the block's last query (the causal half, with the block's own
// triangle), kernels.c turns them into probabilities and the log-sum-exp,
// and one sgemm forms the block of Out, copied back into place. K and V
// are read in place by stride, never copied, and each is packed once for
// the whole group. Blocks are independent, so the result does not depend
// on the thread count.
func (b *Backend) Attention(a compute.Attn) {
	x := b.checkAttn("Attention", a)
	if x == nil {
		return
	}
	B, T, H, KV, D := x.B, x.T, x.H, x.KV, x.D
	g, bq := H/KV, min(b.blocks.AttnQ, T)
	nqb := (T + bq - 1) / bq
	rows := g * bq
	scr := b.scratchPerThread(rows*T + 2*rows*D)
	b.parallelBLAS(B*KV*nqb, 1, func(w, lo, hi int) {
		s, qs, os := scr[w][:rows*T], scr[w][rows*T:rows*(T+D)], scr[w][rows*(T+D):]
		for u := lo; u < hi; u++ {
			bi, kh, qb := u/(KV*nqb), u/nqb%KV, u%nqb
			q0 := qb * bq
			q1, l := min(T, q0+bq), int(x.lens[bi])
			mq, nk := q1-q0, min(q1, l)
			ko := (bi*T*KV + kh) * D
			groupRows(qs, x.q, bi, q0, mq, kh, g, T, H, D, false)
			b.blas.sgemm(false, true, g*mq, nk, D, x.scale, qs, D, x.k[ko:], KV*D, 0, s, nk)
			for hl := 0; hl < g; hl++ {
				attnSoftmax(s[hl*mq*nk:], mq, nk, nk, q0, l, x.lse[(bi*H+kh*g+hl)*T+q0:])
			}
			b.blas.sgemm(false, false, g*mq, D, nk, 1, s, nk, x.v[ko:], KV*D, 0, os, D)
			groupRows(os, x.out, bi, q0, mq, kh, g, T, H, D, true)
		}
	})
}

// AttentionBackward implements compute.Backend with the forward's blocks
// (the group's heads stacked), the probabilities recomputed from the
// saved log-sum-exp: per block, five sgemms (scores, dP = dO·Vᵀ,
// dV += Pᵀ·dO, dQ = dS·K, dK += dSᵀ·Q). Threads split the (row, kv head)
// pairs, so each dK and dV row is summed by one thread, over the query
// blocks in order: the result does not depend on the thread count.
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
	g, bq := H/KV, min(b.blocks.AttnQ, T)
	rows := g * bq
	scr := b.scratchPerThread(2*rows*T + 3*rows*D)
	b.parallelBLAS(B*KV, 1, func(w, lo, hi int) {
		buf := scr[w]
		s, dp := buf[:rows*T], buf[rows*T:2*rows*T]
		qs, dos, dqs := buf[2*rows*T:][:rows*D], buf[2*rows*T+rows*D:][:rows*D], buf[2*rows*T+2*rows*D:][:rows*D]
		for u := lo; u < hi; u++ {
			bi, kh := u/KV, u%KV
			l := int(x.lens[bi])
			ko := (bi*T*KV + kh) * D
			for t := 0; t < T; t++ {
				clear(dk[ko+t*KV*D:][:D])
				clear(dv[ko+t*KV*D:][:D])
			}
			for q0 := 0; q0 < T; q0 += bq {
				q1 := min(T, q0+bq)
				mq, nk := q1-q0, min(q1, l)
				m := g * mq
				groupRows(qs, x.q, bi, q0, mq, kh, g, T, H, D, false)
				groupRows(dos, do, bi, q0, mq, kh, g, T, H, D, false)
				b.blas.sgemm(false, true, m, nk, D, x.scale, qs, D, x.k[ko:], KV*D, 0, s, nk)
				b.blas.sgemm(false, true, m, nk, D, 1, dos, D, x.v[ko:], KV*D, 0, dp, nk)
				for hl := 0; hl < g; hl++ {
					attnGrad(s[hl*mq*nk:], dp[hl*mq*nk:], mq, nk, nk, q0, l, x.lse[(bi*H+kh*g+hl)*T+q0:], x.scale)
				}
				b.blas.sgemm(true, false, nk, D, m, 1, s, nk, dos, D, 1, dv[ko:], KV*D)
				b.blas.sgemm(false, false, m, D, nk, 1, dp, nk, x.k[ko:], KV*D, 0, dqs, D)
				b.blas.sgemm(true, false, nk, D, m, 1, dp, nk, qs, D, 1, dk[ko:], KV*D)
				groupRows(dqs, dq, bi, q0, mq, kh, g, T, H, D, true)
			}
		}
	})
}
