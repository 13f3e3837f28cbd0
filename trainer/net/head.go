package net

import (
	"context"

	"mascot.dev/mascot/trainer/compute"
	"mascot.dev/mascot/trainer/pass"
)

// headRows is how many positions one head call takes: Options.HeadRows,
// or as many as keep an LM-head call near 2^36 FLOPs so cancellation
// stays prompt, but at least 256 (a backend spreads a call's rows over its
// threads in blocks) and at most 8,192: Qwen3-0.6B's vocabulary gets 256
// rows, 80 GFLOP, under a second at two cores' sgemm rate.
func (m *Model) headRows() int {
	if m.Options.HeadRows > 0 {
		return m.Options.HeadRows
	}
	if m.head == nil {
		return 8192
	}
	return min(8192, max(256, (1<<36)/(2*m.d.V*m.d.D)))
}

// seedFunc returns the seed of an output, or nil for a forward.
type seedFunc func(at rowPos) float64

// runHead runs the group's head at its selected positions of hL (the last
// layer's output, [n, D]) and writes out; with seed it also adds the
// head's gradient into dh ([n, D], zeroed by the caller) and into the
// final norm's and the head's weight gradients. Outputs are recomputed
// rather than kept, so a backward after a stored forward (BackwardScores)
// needs nothing from it.
func (m *Model) runHead(ctx context.Context, gc *groupCtx, pl *plan, hL compute.Tensor, out *pass.Outputs, seed seedFunc, dh compute.Tensor) error {
	g, d, be := gc.g, m.d, m.be
	M := len(g.sel)
	if M == 0 {
		return nil
	}
	idx := m.bufs.i32("h.idx", M)
	be.Upload(idx, g.sel)
	var tgt compute.Tensor
	if pl.lm {
		tgt = m.bufs.i32("h.tgt", M)
		be.Upload(tgt, g.tgt)
	}
	rows := m.headRows()
	host := make([]float32, min(rows, M))
	for lo := 0; lo < M; lo += rows {
		k := min(rows, M-lo)
		ix := be.Slice(idx, lo, k)
		hs, hn := m.bufs.f32("h.hsel", k*d.D), m.bufs.f32("h.hn", k*d.D)
		rstd, val := m.bufs.f32("h.rstd", k), m.bufs.f32("h.val", k)
		be.Gather(hs, hL, ix, d.D)
		be.RMSNorm(hn, rstd, hs, m.norm.v, k, d.D, d.eps)
		var lh compute.LMHead
		if pl.lm {
			lh = compute.LMHead{Hidden: hn, Head: m.head.v, Targets: be.Slice(tgt, lo, k), LogP: val,
				LSE: m.bufs.f32("h.lse", k), N: k, D: d.D, V: d.V, InvTemp: pl.invTemp}
			m.flops.Hardware += 2 * float64(k) * float64(d.V) * float64(d.D)
			be.LogProbs(lh)
		} else {
			m.gemm(false, true, k, 1, d.D, 1, hn, d.D, m.score.v, d.D, 0, val, 1)
		}
		be.Download(host[:k], val)
		for i, v := range host[:k] {
			at := g.at[lo+i]
			if pl.lm {
				out.LogP[at.row][at.t] = float64(v)
			} else {
				out.Score[at.row][at.t] = float64(v)
			}
		}
		if seed != nil {
			for i := range host[:k] {
				host[i] = float32(seed(g.at[lo+i]))
			}
			sd := m.bufs.f32("h.seed", k)
			be.Upload(sd, host[:k])
			dhn, dhs := m.bufs.f32("h.dhn", k*d.D), m.bufs.f32("h.dhs", k*d.D)
			if pl.lm {
				be.Zero(dhn)
				m.flops.Hardware += 4 * float64(k) * float64(d.V) * float64(d.D)
				if m.head.trainable {
					m.flops.Hardware += 2 * float64(k) * float64(d.V) * float64(d.D)
				}
				be.LogProbsBackward(lh, sd, dhn, grad(m.head))
			} else {
				m.gemm(false, false, k, d.D, 1, 1, sd, 1, m.score.v, d.D, 0, dhn, d.D) // dhn = seed ⊗ w
				if m.score.trainable {
					m.gemm(true, false, 1, d.D, k, 1, sd, 1, hn, d.D, 1, m.score.g, d.D) // dw += seedᵀ·hn
				}
			}
			be.RMSNormBackward(dhs, grad(m.norm), dhn, hs, m.norm.v, rstd, k, d.D, false)
			be.ScatterAdd(dh, dhs, ix, d.D)
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	return nil
}
