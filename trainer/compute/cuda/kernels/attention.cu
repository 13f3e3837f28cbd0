// The element-wise parts of attention. The products (S = Scale*Q*K^T,
// O = P*V and the backward's four) run on cuBLAS over a chunk of (row,
// kv head) pairs for one query head per group; these kernels turn scores
// into probabilities and back. A chunk holds np pairs p0..p0+np of the
// B*KV (row b, kv head kh) pairs, pair p = b*KV + kh, for query head
// h = kh*g + j; its scores are np [T, T] matrices, one after another.
// Query t of row b attends to keys s <= min(t, lens[b]-1).

// k_attn_softmax: P = exp(S - lse) (bf16, zero where masked) and the
// row's log-sum-exp, at lse[(b*H + h)*T + t]. One block per score row.
extern "C" __global__ void k_attn_softmax(bf16_t* P, float* lse, const float* S, const int* lens,
                                          int p0, int np, int T, int KV, int g, int j, int H) {
  __shared__ float sh[32];
  const long long rows = (long long)np * T;
  for (long long rr = blockIdx.x; rr < rows; rr += gridDim.x) {
    const int pl = (int)(rr / T), t = (int)(rr - (long long)pl * T);
    const int p = p0 + pl, b = p / KV, kh = p - b * KV, h = kh * g + j;
    const int lim = min(t, lens[b] - 1);
    const float* s = S + rr * T;
    float m = -__int_as_float(0x7f800000);
    for (int k = threadIdx.x; k <= lim; k += blockDim.x) m = fmaxf(m, s[k]);
    m = block_max(m, sh);
    float l = 0;
    for (int k = threadIdx.x; k <= lim; k += blockDim.x) l += expf(s[k] - m);
    l = block_sum(l, sh);
    const float L = m + logf(l);
    if (threadIdx.x == 0) lse[((long long)b * H + h) * T + t] = L;
    bf16_t* pr = P + rr * T;
    for (int k = threadIdx.x; k < T; k += blockDim.x) pr[k] = k <= lim ? f2bf(expf(s[k] - L)) : (bf16_t)0;
  }
}

// k_attn_bwd_ds recomputes P = exp(S - lse) from the recomputed scores,
// forms delta = sum_k P*dP over the row (which equals dOut.Out, FlashAttention's
// form, but made of the very P and dP used here, so a row that attends to
// one key gets dS = 0 exactly), and writes P and dS = P*(dP - delta),
// both bf16 (the operands of the backward's products); zero where masked.
extern "C" __global__ void k_attn_bwd_ds(bf16_t* P, bf16_t* dS, const float* S, const float* dP,
                                         const float* lse, const int* lens,
                                         int p0, int np, int T, int KV, int g, int j, int H) {
  __shared__ float sh[32];
  const long long rows = (long long)np * T;
  for (long long rr = blockIdx.x; rr < rows; rr += gridDim.x) {
    const int pl = (int)(rr / T), t = (int)(rr - (long long)pl * T);
    const int p = p0 + pl, b = p / KV, kh = p - b * KV, h = kh * g + j;
    const int lim = min(t, lens[b] - 1);
    const float L = lse[((long long)b * H + h) * T + t];
    const float* s = S + rr * T;
    const float* dp = dP + rr * T;
    float acc = 0;
    for (int k = threadIdx.x; k <= lim; k += blockDim.x) acc += expf(s[k] - L) * dp[k];
    const float delta = block_sum(acc, sh);
    bf16_t* pr = P + rr * T;
    bf16_t* dr = dS + rr * T;
    for (int k = threadIdx.x; k < T; k += blockDim.x) {
      const float pv = k <= lim ? expf(s[k] - L) : 0.0f;
      pr[k] = f2bf(pv);
      dr[k] = f2bf(pv * (dp[k] - delta));
    }
  }
}

// k_attn_bwd_ds_f32 is k_attn_bwd_ds for the float32 path: P and dS stay
// float32, in place of S and dP.
extern "C" __global__ void k_attn_bwd_ds_f32(float* S, float* dP, const float* lse, const int* lens,
                                             int p0, int np, int T, int KV, int g, int j, int H) {
  __shared__ float sh[32];
  const long long rows = (long long)np * T;
  for (long long rr = blockIdx.x; rr < rows; rr += gridDim.x) {
    const int pl = (int)(rr / T), t = (int)(rr - (long long)pl * T);
    const int p = p0 + pl, b = p / KV, kh = p - b * KV, h = kh * g + j;
    const int lim = min(t, lens[b] - 1);
    const float L = lse[((long long)b * H + h) * T + t];
    float* s = S + rr * T;
    float* dp = dP + rr * T;
    float acc = 0;
    for (int k = threadIdx.x; k <= lim; k += blockDim.x) acc += expf(s[k] - L) * dp[k];
    const float delta = block_sum(acc, sh);
    for (int k = threadIdx.x; k < T; k += blockDim.x) {  // each thread rewrites only what it read
      const float pv = k <= lim ? expf(s[k] - L) : 0.0f;
      s[k] = pv;
      dp[k] = pv * (dp[k] - delta);
    }
  }
}

// k_attn_softmax_f32 is k_attn_softmax for the float32 path: P replaces S.
extern "C" __global__ void k_attn_softmax_f32(float* S, float* lse, const int* lens,
                                              int p0, int np, int T, int KV, int g, int j, int H) {
  __shared__ float sh[32];
  const long long rows = (long long)np * T;
  for (long long rr = blockIdx.x; rr < rows; rr += gridDim.x) {
    const int pl = (int)(rr / T), t = (int)(rr - (long long)pl * T);
    const int p = p0 + pl, b = p / KV, kh = p - b * KV, h = kh * g + j;
    const int lim = min(t, lens[b] - 1);
    float* s = S + rr * T;
    float m = -__int_as_float(0x7f800000);
    for (int k = threadIdx.x; k <= lim; k += blockDim.x) m = fmaxf(m, s[k]);
    m = block_max(m, sh);
    float l = 0;
    for (int k = threadIdx.x; k <= lim; k += blockDim.x) l += expf(s[k] - m);
    l = block_sum(l, sh);
    const float L = m + logf(l);
    if (threadIdx.x == 0) lse[((long long)b * H + h) * T + t] = L;
    __syncthreads();  // every thread has read s before any overwrites it
    for (int k = threadIdx.x; k < T; k += blockDim.x) s[k] = k <= lim ? expf(s[k] - L) : 0.0f;
  }
}
