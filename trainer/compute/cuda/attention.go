//go:build cuda

package cuda

import "mascot.dev/mascot/trainer/compute"

// attnArgs are the checked tensors of one Attn.
type attnArgs struct {
	q, k, v, out, lse, lens *tensor
	B, T, H, KV, D          int
	scale                   float32
}

// checkAttn validates a as the CPU backend does, the lengths on the host
// mirror of Lens.
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
	for i, l := range N.ints()[:a.B] {
		if l < 1 || int(l) > a.T {
			b.fail(op, "Lens[%d] = %d is outside 1..T = %d", i, l, a.T)
			return nil
		}
	}
	return &attnArgs{q: Q, k: K, v: V, out: O, lse: L, lens: N, B: a.B, T: a.T, H: a.H, KV: a.KV, D: a.D, scale: a.Scale}
}

// operand is a matrix operand of one pair of a batched product: for pair
// p = b·KV + kh its address is base + b·outer + kh·step (bytes), with
// element type dt.
type operand struct {
	base        devPtr
	outer, step int
	dt          compute.DType
}

// tokenMajor is the operand of head (kh·g + j) (g = 1, j = 0 for a kv
// head) of a [B·T, heads·D] tensor at p of element type dt.
func tokenMajor(p devPtr, dt compute.DType, T, heads, D, g, j int) operand {
	es := dt.Size()
	return operand{base: p + devPtr(j*D*es), outer: T * heads * D * es, step: g * D * es, dt: dt}
}

// scores is the operand of the chunk's [T, T] matrices at p, whose first
// pair is p0: pair p sits at (p − p0)·T² elements.
func scores(p devPtr, dt compute.DType, T, KV, p0 int) operand {
	es := dt.Size()
	return operand{base: p - devPtr(p0*T*T*es), outer: KV * T * T * es, step: T * T * es, dt: dt}
}

// batched runs C = alpha·op(A)·op(B) + beta·C for pairs p0..p0+n of the
// chunk, writing the three pointer arrays into arr first.
func (b *Backend) batched(op string, arr devPtr, p0, n, KV int, transA, transB bool, m, nn, k int, alpha float32,
	A operand, lda int, B operand, ldb int, beta float32, C operand, ldc int) {
	b.launch1(op, "k_batch_ptrs", n, arr, n, p0, KV,
		uint64(A.base), A.outer, A.step, uint64(B.base), B.outer, B.step, uint64(C.base), C.outer, C.step)
	b.rowGemm(op, transA, transB, m, nn, k, alpha, arr, A.dt, lda, arr+devPtr(8*n), B.dt, ldb, beta, arr+devPtr(16*n), ldc, n)
}

// attnOperands returns Q, K and V (and dOut when given) as the products
// read them: rounded to bf16 copies for the BF16 precision, as they are
// for F32.
func (b *Backend) attnOperands(op string, x *attnArgs, dOut *tensor) (q, k, v, do devPtr, dt compute.DType) {
	if b.prec == F32 {
		if dOut != nil {
			do = dOut.ptr()
		}
		return x.q.ptr(), x.k.ptr(), x.v.ptr(), do, compute.F32
	}
	conv := func(t *tensor, heads int) devPtr {
		p := b.tmp(op, 2*x.B*x.T*heads*x.D)
		b.launch1(op, "k_to_bf16", x.B*x.T*heads*x.D, p, t.ptr(), x.B*x.T, heads*x.D, heads*x.D)
		return p
	}
	q, k, v = conv(x.q, x.H), conv(x.k, x.KV), conv(x.v, x.KV)
	if dOut != nil {
		do = conv(dOut, x.H)
	}
	return q, k, v, do, compute.BF16
}

// chunkPairs is how many (row, kv head) pairs one chunk holds when each
// needs per bytes of scores.
func (b *Backend) chunkPairs(pairs, per int) int {
	return max(1, min(pairs, int(b.scratch/int64(per))))
}

// Attention implements compute.Backend. For each query head j of a group
// and each chunk of (row, kv head) pairs: S = Scale·Q·Kᵀ (cuBLAS, f32
// scores), a kernel for the masked softmax (probabilities and one
// log-sum-exp per query), O = P·V (cuBLAS). The [T, T] scores exist for
// one chunk at a time (Options.ScratchBytes), never for the whole batch.
func (b *Backend) Attention(a compute.Attn) {
	const op = "Attention"
	x := b.checkAttn(op, a)
	if x == nil {
		return
	}
	defer b.dropTemps()
	B, T, H, KV, D := x.B, x.T, x.H, x.KV, x.D
	g, pairs := H/KV, B*KV
	q, k, v, _, dt := b.attnOperands(op, x, nil)
	per := T * T * (4 + dt.Size())
	if dt == compute.F32 {
		per = T * T * 4 // P replaces S
	}
	np := b.chunkPairs(pairs, per)
	S := b.tmp(op, np*T*T*4)
	P := S
	if dt == compute.BF16 {
		P = b.tmp(op, np*T*T*2)
	}
	arr := b.tmp(op, 24*np)
	if b.err != nil {
		return
	}
	wrote(x.out, x.lse)
	for j := 0; j < g; j++ {
		for p0 := 0; p0 < pairs; p0 += np {
			n := min(np, pairs-p0)
			b.batched(op, arr, p0, n, KV, false, true, T, T, D, x.scale,
				tokenMajor(q, dt, T, H, D, g, j), H*D, tokenMajor(k, dt, T, KV, D, 1, 0), KV*D,
				0, scores(S, compute.F32, T, KV, p0), T)
			if dt == compute.BF16 {
				b.launchRows(op, "k_attn_softmax", n*T, P, x.lse.ptr(), S, x.lens.ptr(), p0, n, T, KV, g, j, H)
			} else {
				b.launchRows(op, "k_attn_softmax_f32", n*T, S, x.lse.ptr(), x.lens.ptr(), p0, n, T, KV, g, j, H)
			}
			b.batched(op, arr, p0, n, KV, false, false, T, D, T, 1,
				scores(P, dt, T, KV, p0), T, tokenMajor(v, dt, T, KV, D, 1, 0), KV*D,
				0, tokenMajor(x.out.ptr(), compute.F32, T, H, D, g, j), H*D)
		}
	}
}

// AttentionBackward implements compute.Backend: per query head j of a
// group and chunk of pairs it recomputes S and P from the forward's LSE,
// forms dP = dOut·Vᵀ, delta = rowsum(P⊙dP) and dS = P⊙(dP − delta), and
// runs dV += Pᵀ·dOut, dQ = Scale·dS·K, dK += Scale·dSᵀ·Q. The
// query heads of a group add into dK and dV one after another (j = 0
// overwrites), so the sums are in a fixed order.
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
	defer b.dropTemps()
	g, pairs := H/KV, B*KV
	q, k, v, do, dt := b.attnOperands(op, x, DO)
	per := T * T * 2 * (4 + dt.Size())
	if dt == compute.F32 {
		per = T * T * 8 // P and dS replace S and dP
	}
	np := b.chunkPairs(pairs, per)
	S, dP := b.tmp(op, np*T*T*4), b.tmp(op, np*T*T*4)
	P, dS := S, dP
	if dt == compute.BF16 {
		P, dS = b.tmp(op, np*T*T*2), b.tmp(op, np*T*T*2)
	}
	arr := b.tmp(op, 24*np)
	if b.err != nil {
		return
	}
	wrote(DQ, DK, DV)
	Q, K, Vv, dO := tokenMajor(q, dt, T, H, D, g, 0), tokenMajor(k, dt, T, KV, D, 1, 0), tokenMajor(v, dt, T, KV, D, 1, 0), tokenMajor(do, dt, T, H, D, g, 0)
	dQo, dKo, dVo := tokenMajor(DQ.ptr(), compute.F32, T, H, D, g, 0), tokenMajor(DK.ptr(), compute.F32, T, KV, D, 1, 0), tokenMajor(DV.ptr(), compute.F32, T, KV, D, 1, 0)
	for j := 0; j < g; j++ {
		head := func(o operand) operand { o.base += devPtr(j * D * o.dt.Size()); return o }
		beta := float32(0)
		if j > 0 {
			beta = 1
		}
		for p0 := 0; p0 < pairs; p0 += np {
			n := min(np, pairs-p0)
			b.batched(op, arr, p0, n, KV, false, true, T, T, D, x.scale, head(Q), H*D, K, KV*D, 0, scores(S, compute.F32, T, KV, p0), T)
			b.batched(op, arr, p0, n, KV, false, true, T, T, D, 1, head(dO), H*D, Vv, KV*D, 0, scores(dP, compute.F32, T, KV, p0), T)
			if dt == compute.BF16 {
				b.launchRows(op, "k_attn_bwd_ds", n*T, P, dS, S, dP, x.lse.ptr(), x.lens.ptr(), p0, n, T, KV, g, j, H)
			} else {
				b.launchRows(op, "k_attn_bwd_ds_f32", n*T, S, dP, x.lse.ptr(), x.lens.ptr(), p0, n, T, KV, g, j, H)
			}
			b.batched(op, arr, p0, n, KV, true, false, T, D, T, 1, scores(P, dt, T, KV, p0), T, head(dO), H*D, beta, dVo, KV*D)
			b.batched(op, arr, p0, n, KV, false, false, T, D, T, x.scale, scores(dS, dt, T, KV, p0), T, K, KV*D, 0, head(dQo), H*D)
			b.batched(op, arr, p0, n, KV, true, false, T, D, T, x.scale, scores(dS, dt, T, KV, p0), T, head(Q), H*D, beta, dKo, KV*D)
		}
	}
}
