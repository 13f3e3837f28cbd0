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

// active lists the rows that take part: a target, and (for the
// backward) a non-zero seed.
func (x *headArgs) active(seed []float32) []int {
	var rows []int
	for i, t := range x.targets {
		if t >= 0 && (seed == nil || seed[i] != 0) {
			rows = append(rows, i)
		}
	}
	return rows
}

// compact gathers the active rows of hidden into a dense [len(rows), D]
// matrix (hidden itself when every row is active).
func (b *Backend) compact(x *headArgs, rows []int) []float32 {
	if len(rows) == x.N {
		return x.hidden[:x.N*x.D]
	}
	out := make([]float32, len(rows)*x.D)
	b.parallelFor(len(rows), 64, func(_, lo, hi int) {
		for r := lo; r < hi; r++ {
			copy(out[r*x.D:(r+1)*x.D], x.hidden[rows[r]*x.D:])
		}
	})
	return out
}

// headBlock returns rows v0..v1 of the head as F32: a view of an F32 head,
// or a BF16 head's rows widened into b.convB.
func (b *Backend) headBlock(x *headArgs, v0, v1 int) []float32 {
	if x.head.dt == compute.F32 {
		return x.head.f32()[v0*x.D : v1*x.D]
	}
	w, _ := b.gemmOperand(x.head, true, x.V, v0, v1, x.D, x.D, &b.convB)
	return w
}

// LogProbs implements compute.Backend, blocked over the vocabulary and
// the rows: for each block of Blocks.HeadVocab head rows (widened once if
// BF16) and each block of Blocks.HeadRows active rows, one sgemm forms the
// logits and kernels.c their block max and sum of exponentials, merged
// into the row's running log-sum-exp in float64 in vocabulary order.
// Threads own row blocks, so the result does not depend on the thread
// count. Rows without a target are skipped and get LogP 0 and LSE 0.
func (b *Backend) LogProbs(h compute.LMHead) {
	x := b.checkHead("LogProbs", h)
	if x == nil {
		return
	}
	clear(x.logp[:x.N])
	clear(x.lse[:x.N])
	rows := x.active(nil)
	na, D := len(rows), x.D
	if na == 0 {
		return
	}
	hc := b.compact(x, rows)
	vb, rb := min(x.V, b.blocks.HeadVocab), b.blocks.HeadRows
	nrb := (na + rb - 1) / rb
	mx, sum, zt := make([]float64, na), make([]float64, na), make([]float32, na)
	for i := range mx {
		mx[i] = math.Inf(-1)
	}
	bmx, bsum := make([]float32, na), make([]float32, na)
	scr := b.scratchPerThread(rb * vb)
	for v0 := 0; v0 < x.V; v0 += vb {
		v1 := min(x.V, v0+vb)
		nv := v1 - v0
		w := b.headBlock(x, v0, v1)
		b.parallelBLAS(nrb, 1, func(wk, lo, hi int) {
			z := scr[wk]
			for blk := lo; blk < hi; blk++ {
				r0, r1 := blk*rb, min(na, (blk+1)*rb)
				b.blas.sgemm(false, true, r1-r0, nv, D, x.invTemp, hc[r0*D:], D, w, D, 0, z, nv)
				rowMaxSumExp(z, r1-r0, nv, nv, bmx[r0:], bsum[r0:])
				for r := r0; r < r1; r++ {
					if t := int(x.targets[rows[r]]); t >= v0 && t < v1 {
						zt[r] = z[(r-r0)*nv+t-v0]
					}
					m, bm := mx[r], float64(bmx[r])
					if bm > m {
						sum[r] = sum[r]*math.Exp(m-bm) + float64(bsum[r])
						mx[r] = bm
					} else {
						sum[r] += float64(bsum[r]) * math.Exp(bm-m)
					}
				}
			}
		})
	}
	for r, i := range rows {
		lse := float32(mx[r] + math.Log(sum[r]))
		x.lse[i], x.logp[i] = lse, zt[r]-lse
	}
}

// LogProbsBackward implements compute.Backend with LogProbs's blocks: the
// block's logits are recomputed, kernels.c turns them into
// seed·invTemp·(onehot − p) from the saved LSE, and two sgemms add that
// block's share into dHidden (rows owned by one thread, summed over the
// vocabulary blocks in order) and, when asked, into a per-thread partial
// of dHead, added into dHead in thread order after each vocabulary block:
// deterministic for a given thread count. Rows without a target or with
// seed 0 are skipped.
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
	rows := x.active(sd)
	na, D := len(rows), x.D
	if na == 0 {
		return
	}
	hc := b.compact(x, rows)
	lse, coef := make([]float32, na), make([]float32, na)
	for r, i := range rows {
		lse[r], coef[r] = x.lse[i], sd[i]*x.invTemp
	}
	// Every row active: the products add into dHidden itself.
	dhc, direct := dh[:na*D], na == x.N
	if !direct {
		dhc = make([]float32, na*D)
	}
	vb, rb := min(x.V, b.blocks.HeadVocab), b.blocks.HeadRows
	nrb := (na + rb - 1) / rb
	scr := b.scratchPerThread(rb * vb)
	var parts [][]float32
	if DW != nil {
		parts = make([][]float32, b.threads)
		for i := range parts {
			parts[i] = make([]float32, vb*D)
		}
	}
	tgt := make([]int32, na)
	for v0 := 0; v0 < x.V; v0 += vb {
		v1 := min(x.V, v0+vb)
		nv := v1 - v0
		w := b.headBlock(x, v0, v1)
		for r, i := range rows {
			tgt[r] = -1
			if t := int(x.targets[i]); t >= v0 && t < v1 {
				tgt[r] = int32(t - v0)
			}
		}
		b.parallelBLAS(nrb, 1, func(wk, lo, hi int) {
			z := scr[wk]
			for blk := lo; blk < hi; blk++ {
				r0, r1 := blk*rb, min(na, (blk+1)*rb)
				b.blas.sgemm(false, true, r1-r0, nv, D, x.invTemp, hc[r0*D:], D, w, D, 0, z, nv)
				headGrad(z, r1-r0, nv, nv, lse[r0:], coef[r0:], tgt[r0:])
				b.blas.sgemm(false, false, r1-r0, D, nv, 1, z, nv, w, D, 1, dhc[r0*D:], D)
				if parts != nil {
					b.blas.sgemm(true, false, nv, D, r1-r0, 1, z, nv, hc[r0*D:], D, 1, parts[wk], D)
				}
			}
		})
		if parts != nil {
			used := b.parts(nrb, 1)
			dw := DW.f32()[v0*D : v1*D]
			b.parallelFor(len(dw), elemGrain, func(_, lo, hi int) {
				for p := 0; p < used; p++ {
					part := parts[p][lo:hi]
					for j, v := range part {
						dw[lo+j] += v
					}
					clear(part)
				}
			})
		}
	}
	if direct {
		return
	}
	b.parallelFor(na, 16, func(_, lo, hi int) {
		for r := lo; r < hi; r++ {
			d, src := dh[rows[r]*D:][:D], dhc[r*D:][:D]
			for e := range d {
				d[e] += src[e]
			}
		}
	})
}
