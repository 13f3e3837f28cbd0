// Element-wise kernels of the CPU backend, compiled by cgo with one clone
// per x86-64 level (v4: AVX-512, v3: AVX2+FMA, baseline) chosen when the
// program loads. Each loop is written so that GCC vectorises it without
// -ffast-math: sums are OpenMP simd reductions (-fopenmp-simd, no OpenMP
// runtime), one partial sum per vector lane combined in a fixed order, so
// a result depends on the data and the machine's clone, never on the
// caller's threads.
#ifndef MASCOT_KERNELS_H
#define MASCOT_KERNELS_H

// Attention forward: rows of s (stride ld) hold one block's scores; row r
// is query first+r of a row of len real keys. Overwrites each row with its
// softmax over the keys it attends to (min(first+r+1, len)) and zeros up
// to nk; writes its log-sum-exp to lse[r].
void mascot_attn_softmax(float *s, int rows, int ld, int nk, int first, int len, float *lse);

// Attention backward: s holds the block's scores, dp = dO·Vᵀ. Writes
// p = exp(s − lse) into s and dS = p·(dp − Σ p·dp)·scale into dp (zero past
// each row's keys). Σ p·dp equals the usual rowsum(dO ⊙ O) in exact
// arithmetic; formed from the same p and dp it makes dS exactly 0 for a
// query with one key, where dO·O would leave float32 noise that every
// padded query of the row then adds into dK.
void mascot_attn_grad(float *s, float *dp, int rows, int ld, int nk, int first, int len,
		const float *lse, float scale);

// LM head: per row of z (rows×n, stride ld), mx[r] = max and
// sum[r] = Σ exp(z − max).
void mascot_row_max_sumexp(const float *z, int rows, int n, int ld, float *mx, float *sum);

// LM head backward: z holds one block's logits; overwrites it with
// coef[r]·(1[j = tgt[r]] − exp(z − lse[r])) (tgt[r] is the target's column
// in the block or −1).
void mascot_head_grad(float *z, int rows, int n, int ld, const float *lse, const float *coef, const int *tgt);

void mascot_swiglu(float *out, const float *g, const float *u, long n);
void mascot_swiglu_bwd(float *dg, float *du, const float *dout, const float *g, const float *u, long n);

// Σ x² in eight double lanes.
double mascot_sumsq(const float *x, long n);

// RMSNorm of rows rows of dim: the mean square in double lanes, out =
// (x·rstd)·w. out may equal x.
void mascot_rmsnorm(float *out, float *rstd, const float *x, const float *w, long rows, int dim, float eps);
// dx (= or +=) rstd·dy·w − x·rstd³·mean(dy·w·x).
void mascot_rmsnorm_bwd(float *dx, const float *dy, const float *x, const float *w, const float *rstd,
		long rows, int dim, int accumulate);
// acc[j−lo] += Σ_r dy[r,j]·x[r,j]·rstd[r] for columns lo..hi, rows in order.
void mascot_rmsnorm_dw(double *acc, const float *dy, const float *x, const float *rstd, long rows, int dim, int lo, int hi);

// Rotates each head's (x_i, x_{i+dim/2}) pairs by the tables' angle at
// pos[r], by its negative when sign is −1.
void mascot_rope(float *x, const int *pos, const float *cs, const float *sn, long rows, int heads, int dim, float sign);

// Widens bfloat16 bits to float32 (exact).
void mascot_bf16_to_f32(float *dst, const unsigned short *src, long n);

// dst[i] = src[i]·scale where compute.Keep(seed, base+i, p), else 0.
void mascot_dropout(float *dst, const float *src, long n, long base, unsigned long long seed, float p, float scale);

#endif
