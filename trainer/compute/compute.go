// Package compute is the seam between the trainer's Qwen3 network and the
// hardware that runs it: one Backend interface holding the heavy work of a
// forward and backward pass (matrix products, fused attention, RMSNorm,
// RoPE, SwiGLU, the LM-head log-prob, gathers, AdamW), implemented for the
// CPU (trainer/compute/cpu: its own sgemm, or OpenBLAS or gonum) and for
// CUDA (trainer/compute/cuda, built with -tags cuda).
//
// Layer: trainer, below the network (trainer/net) and above nothing but
// the libraries a backend loads. It holds no model knowledge: shapes are
// arguments, and every op is defined here precisely enough that two
// backends can be checked against each other (trainer/compute/computetest).
//
// Conventions:
//   - Tensors are flat, row-major buffers owned by one Backend. A [rows,
//     cols] matrix with row stride cols is the default layout; Slice gives
//     views, so per-layer or per-row pieces of one allocation need no copy.
//   - F32 holds activations, gradients, adapters and optimizer state;
//     BF16 only frozen weights (read by Gemm, Gather and the LM head, and
//     never written by an op); I32 token ids, positions and lengths.
//   - Ops may be queued and run asynchronously in issue order; Download,
//     SumSquares and Sync wait for queued work. An op given bad arguments
//     (shapes that do not fit the buffers) makes the backend's error
//     sticky: later ops do nothing and Sync returns the first error,
//     whose text names the op.
//   - Accumulating outputs (Gemm with beta 1, the *Backward ops' weight
//     gradients, ScatterAdd) add into what is there; the others overwrite.
//   - Results are deterministic for a given backend and thread count: no
//     op reduces in an order that depends on scheduling.
package compute

import "fmt"

// DType is the element type of a Tensor.
type DType uint8

const (
	// F32 is IEEE-754 binary32.
	F32 DType = iota + 1
	// BF16 is bfloat16 (the upper 16 bits of a binary32; written from F32
	// with round-to-nearest-even), for frozen weights.
	BF16
	// I32 is a signed 32-bit integer (token ids, positions, lengths).
	I32
)

// String names the type as safetensors does.
func (d DType) String() string {
	switch d {
	case F32:
		return "F32"
	case BF16:
		return "BF16"
	case I32:
		return "I32"
	}
	return fmt.Sprintf("DType(%d)", uint8(d))
}

// Size is the element size in bytes.
func (d DType) Size() int {
	if d == BF16 {
		return 2
	}
	return 4
}

// Tensor is a flat buffer of Len elements of one DType, owned by the
// Backend that allocated it (or a view of one, from Slice).
type Tensor interface {
	Len() int
	DType() DType
}

// Backend runs the trainer's heavy work. Implementations are not safe
// for concurrent use: one goroutine drives a Backend (the ops themselves
// may use every core or the whole device).
type Backend interface {
	// Name is "cpu" or "cuda"; Describe says what it runs on (the BLAS
	// library and thread count, or the device and its driver).
	Name() string
	Describe() string

	// Alloc returns a zeroed tensor of n elements.
	Alloc(dt DType, n int) Tensor
	// Free releases a tensor allocated by Alloc (not a view); using it
	// afterwards is an error.
	Free(t Tensor)
	// Slice returns the view of elements [off, off+n) of t.
	Slice(t Tensor, off, n int) Tensor
	// Upload copies src into dst: []float32 into F32 or BF16 (rounded to
	// nearest even), []uint16 (bfloat16 bits) into BF16, []int32 into I32.
	// len(src) must equal dst.Len().
	Upload(dst Tensor, src any)
	// Download copies src into dst ([]float32 from F32 or BF16, []int32
	// from I32), waiting for queued work.
	Download(dst any, src Tensor)
	// Zero sets every element to 0; Copy copies src into dst (same type
	// and length).
	Zero(t Tensor)
	Copy(dst, src Tensor)
	// Sync waits for every queued op and returns the backend's sticky
	// error, if any.
	Sync() error
	// MemoryInUse is the number of bytes of live allocations.
	MemoryInUse() int64

	// Gemm computes C = alpha·op(A)·op(B) + beta·C, where op(A) is m×k,
	// op(B) is k×n and C is m×n, all row-major with row strides lda, ldb,
	// ldc (of the stored, untransposed matrices). A and B are F32 or BF16,
	// C is F32; products accumulate in float32 (or wider). beta 0 ignores
	// C's previous contents (NaNs included).
	Gemm(transA, transB bool, m, n, k int, alpha float32, a Tensor, lda int, b Tensor, ldb int, beta float32, c Tensor, ldc int)

	// Gather copies rows: out[i, :] = src[idx[i], :] for i < len(idx),
	// rows of dim elements. src is F32 or BF16 (an embedding table), out
	// F32, idx I32.
	Gather(out, src, idx Tensor, dim int)
	// ScatterAdd is Gather's adjoint: dst[idx[i], :] += src[i, :] (F32;
	// repeated indices add up, in index order).
	ScatterAdd(dst, src, idx Tensor, dim int)

	// Add computes dst += src; Axpy dst += alpha·src; Scale t *= alpha
	// (F32, equal lengths).
	Add(dst, src Tensor)
	Axpy(dst Tensor, alpha float32, src Tensor)
	Scale(t Tensor, alpha float32)
	// SumSquares returns Σ t[i]² accumulated in float64, waiting for
	// queued work (global gradient norms).
	SumSquares(t Tensor) float64

	// RMSNorm normalises each of rows rows of dim elements:
	// out = x / sqrt(mean(x²) + eps) ⊙ w, saving rstd[r] = 1/sqrt(mean+eps).
	// The mean square accumulates in float32 or wider. out may equal x.
	RMSNorm(out, rstd, x, w Tensor, rows, dim int, eps float32)
	// RMSNormBackward takes dy (the gradient of out) and writes dx (adding
	// when accumulate is set) and, when dw is not nil, adds the gradient of
	// w (summed over rows) into dw. x, w and rstd are those of the forward.
	RMSNormBackward(dx, dw, dy, x, w, rstd Tensor, rows, dim int, accumulate bool)

	// RoPE rotates, in place, each head of x ([rows, heads·dim], head h of
	// row r at r·heads·dim + h·dim) by the angle table of its position
	// pos[r] (I32): with c = cos[pos, i], s = sin[pos, i] (tables [maxPos,
	// dim/2], F32) and i < dim/2, the pair (x_i, x_{i+dim/2}) becomes
	// (x_i·c − x_{i+dim/2}·s, x_{i+dim/2}·c + x_i·s): Qwen3's rotate_half.
	// inverse rotates by −angle, which is the backward of the forward.
	RoPE(x, pos, cos, sin Tensor, rows, heads, dim int, inverse bool)

	// Attention is causal softmax attention with padding and GQA; see Attn.
	Attention(a Attn)
	// AttentionBackward writes dQ, dK, dV (overwritten) from dOut and the
	// forward's Q, K, V, Out and LSE, recomputing the probabilities.
	AttentionBackward(a Attn, dOut, dQ, dK, dV Tensor)

	// SwiGLU computes out = silu(gate) ⊙ up (F32, equal lengths), with
	// silu(x) = x·sigmoid(x).
	SwiGLU(out, gate, up Tensor)
	// SwiGLUBackward writes dGate and dUp (overwritten) from dOut.
	SwiGLUBackward(dGate, dUp, dOut, gate, up Tensor)

	// Dropout writes dst = src ⊙ mask / (1−p), where element i is kept iff
	// Keep(seed, i, p): the mask is a function of (seed, i), so a backward
	// applies the same mask by calling Dropout again with the same seed.
	Dropout(dst, src Tensor, p float32, seed uint64)

	// LogProbs computes, for each row with a target, the log-probability of
	// the target under softmax(hidden·headᵀ·invTemp); see LMHead.
	LogProbs(h LMHead)
	// LogProbsBackward adds into dHidden ([N, D]) and, when dHead is not nil,
	// into dHead ([V, D], F32) the gradient of Σ seed[i]·logp[i], using the
	// forward's LSE. Rows without a target contribute nothing.
	LogProbsBackward(h LMHead, seed, dHidden, dHead Tensor)

	// AdamW updates param in place from grad (both F32) with torch.optim.
	// AdamW semantics and bias correction, moments m and v kept in F32; see Adam.
	AdamW(param, grad, m, v Tensor, a Adam)
}

// Attn describes one attention call over B right-padded rows of T tokens.
// Q and Out are [B·T, H·D]; K and V are [B·T, KV·D] (token-major, the heads
// of a token contiguous). Query head h reads kv head h/(H/KV) (GQA:
// contiguous groups). Query t of row b attends to keys s ≤ t with
// s < Lens[b] (a query at or past its row's length attends to the row's
// real keys, so no row is empty); scores are Scale·q·k. LSE [B·H·T] (F32,
// index (b·H + h)·T + t) keeps each query's log-sum-exp of its scores.
type Attn struct {
	Q, K, V, Out, LSE Tensor
	// Lens is I32 [B]: the real length of each row, 1..T.
	Lens           Tensor
	B, T, H, KV, D int
	Scale          float32
}

// LMHead describes one fused LM-head pass over N rows. Hidden is [N, D]
// F32 (after the final norm), Head [V, D] F32 or BF16 (lm_head, or the
// tied embedding), Targets I32 [N] (negative: no target, LogP and LSE 0). LogP and
// LSE are [N] F32: LSE[i] = logsumexp_j(hidden_i·head_j·InvTemp), LogP[i] =
// hidden_i·head_t·InvTemp − LSE[i]. The [N, V] logits are never stored
// whole: a backend works through them in blocks.
type LMHead struct {
	Hidden, Head, Targets, LogP, LSE Tensor
	N, D, V                          int
	InvTemp                          float32
}

// Adam holds one AdamW step's hyper-parameters. Step is the 1-based step
// number (bias correction 1−β^Step). GradScale multiplies the gradient
// before use (global-norm clipping and loss scaling fold into it); 0 is
// taken as 1, so a zero Adam value does not silently freeze training.
type Adam struct {
	LR, Beta1, Beta2, Eps, WeightDecay float64
	Step                               int
	GradScale                          float64
}
