//go:build cuda

package cuda

import "mascot.dev/mascot/trainer/compute"

// headArgs are the checked tensors of one LMHead.
type headArgs struct {
	hidden, head, targets, logp, lse *tensor
	N, D, V                          int
	invTemp                          float32
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
	for i, t := range T.ints()[:h.N] {
		if int(t) >= h.V {
			b.fail(op, "Targets[%d] = %d is not below V = %d", i, t, h.V)
			return nil
		}
	}
	return &headArgs{hidden: X, head: W, targets: T, logp: P, lse: L, N: h.N, D: h.D, V: h.V, invTemp: h.InvTemp}
}

// headOperands returns the hidden rows and the head as the products read
// them, and their element type: for a BF16 head, the hidden rows rounded
// to bf16 (BF16 precision) or the head widened to f32 (F32 precision,
// cached while the head is unchanged); an F32 head is used as it is.
func (b *Backend) headOperands(op string, x *headArgs) (hid, head devPtr, dt compute.DType) {
	if x.head.dt == compute.F32 {
		return x.hidden.ptr(), x.head.ptr(), compute.F32
	}
	if b.prec == F32 {
		return x.hidden.ptr(), b.converted(op, x.head, x.V, x.D, x.D, compute.F32), compute.F32
	}
	p := b.tmp(op, 2*x.N*x.D)
	b.launch1(op, "k_to_bf16", x.N*x.D, p, x.hidden.ptr(), x.N, x.D, x.D)
	return p, x.head.ptr(), compute.BF16
}

// headRows is how many rows of logits one block holds when each row needs
// per bytes.
func (b *Backend) headRows(n, per int) int {
	return max(1, min(n, int(b.scratch/int64(per))))
}

// LogProbs implements compute.Backend: blocks of rows, each one product
// Z = InvTemp·hidden·headᵀ (cuBLAS, f32 logits) and one kernel for the
// row's log-sum-exp and the target's log-probability.
func (b *Backend) LogProbs(h compute.LMHead) {
	const op = "LogProbs"
	x := b.checkHead(op, h)
	if x == nil || x.N == 0 {
		return
	}
	defer b.dropTemps()
	hid, head, dt := b.headOperands(op, x)
	R := b.headRows(x.N, 4*x.V)
	Z := b.tmp(op, 4*R*x.V)
	if b.err != nil {
		return
	}
	wrote(x.logp, x.lse)
	es := dt.Size()
	for r0 := 0; r0 < x.N; r0 += R {
		n := min(R, x.N-r0)
		b.rowGemm(op, false, true, n, x.V, x.D, x.invTemp, hid+devPtr(r0*x.D*es), dt, x.D, head, dt, x.D, 0, Z, x.V, 0)
		b.launchRows(op, "k_lmhead_fwd", n, x.logp.ptr(), x.lse.ptr(), Z, x.targets.ptr(), n, x.V, r0)
	}
}

// LogProbsBackward implements compute.Backend: per block of rows it
// recomputes the logits, turns them into dZ = seed·(onehot − softmax) in
// place (and a bf16 copy for a BF16 head), then dHidden += InvTemp·dZ·head
// and, when asked, dHead += InvTemp·dZᵀ·hidden (float32).
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
	if S == nil || DH == nil || (dHead != nil && DW == nil) || x.N == 0 {
		return
	}
	defer b.dropTemps()
	hid, head, dt := b.headOperands(op, x)
	per := 4 * x.V
	if dt == compute.BF16 {
		per += 2 * x.V
	}
	R := b.headRows(x.N, per)
	Z := b.tmp(op, 4*R*x.V)
	var Zb devPtr
	if dt == compute.BF16 {
		Zb = b.tmp(op, 2*R*x.V)
	}
	if b.err != nil {
		return
	}
	wrote(DH, DW)
	es := dt.Size()
	for r0 := 0; r0 < x.N; r0 += R {
		n := min(R, x.N-r0)
		b.rowGemm(op, false, true, n, x.V, x.D, x.invTemp, hid+devPtr(r0*x.D*es), dt, x.D, head, dt, x.D, 0, Z, x.V, 0)
		b.launchRows(op, "k_lmhead_bwd", n, Z, Zb, x.lse.ptr(), x.targets.ptr(), S.ptr(), n, x.V, r0)
		dz, dzt := Z, compute.F32
		if dt == compute.BF16 {
			dz, dzt = Zb, compute.BF16
		}
		b.rowGemm(op, false, false, n, x.D, x.V, x.invTemp, dz, dzt, x.V, head, dt, x.D, 1, DH.ptr()+devPtr(4*r0*x.D), x.D, 0)
		if DW != nil {
			b.rowGemm(op, true, false, x.V, x.D, n, x.invTemp, Z, compute.F32, x.V, x.hidden.ptr()+devPtr(4*r0*x.D), compute.F32, x.D,
				1, DW.ptr(), x.D, 0)
		}
	}
}
