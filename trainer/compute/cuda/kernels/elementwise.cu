// Element-wise kernels. Lengths are long long: a [V, D] LM-head buffer of
// Qwen3-8B holds 622 M elements, and the logits block of the LM head more.
// Each kernel walks its range with a grid-stride loop (GRID_STRIDE).

extern "C" __global__ void k_add(float* dst, const float* src, long long n) {
  GRID_STRIDE(i, n) dst[i] += src[i];
}

extern "C" __global__ void k_axpy(float* dst, float alpha, const float* src, long long n) {
  GRID_STRIDE(i, n) dst[i] += alpha * src[i];
}

extern "C" __global__ void k_scale(float* t, float alpha, long long n) {
  GRID_STRIDE(i, n) t[i] *= alpha;
}

// k_swiglu: out = silu(gate) * up, silu(x) = x * sigmoid(x).
extern "C" __global__ void k_swiglu(float* out, const float* gate, const float* up, long long n) {
  GRID_STRIDE(i, n) {
    const float x = gate[i];
    out[i] = x / (1.0f + expf(-x)) * up[i];
  }
}

extern "C" __global__ void k_swiglu_bwd(float* dgate, float* dup, const float* dout,
                                        const float* gate, const float* up, long long n) {
  GRID_STRIDE(i, n) {
    const float x = gate[i], y = up[i], d = dout[i];
    const float s = 1.0f / (1.0f + expf(-x));
    dup[i] = d * x * s;
    dgate[i] = d * y * s * (1.0f + x * (1.0f - s));
  }
}

// uniform is compute.Uniform: SplitMix64 of (seed, i), top 24 bits.
static __device__ __forceinline__ float uniform(u64 seed, long long i) {
  u64 z = seed + (u64)(i + 1) * 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  return (float)(z >> 40) * (1.0f / 16777216.0f);
}

// k_dropout keeps element i iff uniform(seed, i) >= p (compute.Keep) and
// scales it by scale = 1/(1-p), computed in float32 by the host.
extern "C" __global__ void k_dropout(float* dst, const float* src, float p, float scale,
                                     u64 seed, long long n) {
  GRID_STRIDE(i, n) dst[i] = uniform(seed, i) >= p ? src[i] * scale : 0.0f;
}

// k_to_bf16 rounds a [rows, cols] F32 matrix of row stride ld into a
// contiguous BF16 one (the operand of a tensor-core product).
extern "C" __global__ void k_to_bf16(bf16_t* dst, const float* src, long long rows, int cols, long long ld) {
  GRID_STRIDE(i, rows * cols) {
    const long long r = i / cols, c = i - r * cols;
    dst[i] = f2bf(src[r * ld + c]);
  }
}

// k_to_f32 widens a [rows, cols] BF16 matrix of row stride ld into a
// contiguous F32 one (exact; the float32 path of a mixed product).
extern "C" __global__ void k_to_f32(float* dst, const bf16_t* src, long long rows, int cols, long long ld) {
  GRID_STRIDE(i, rows * cols) {
    const long long r = i / cols, c = i - r * cols;
    dst[i] = bf2f(src[r * ld + c]);
  }
}

// k_batch_ptrs writes three arrays of n device addresses for a batched
// product: entry i of array a is base[a] + ((p0+i)/inner)*outer[a] +
// ((p0+i)%inner)*step[a] (bytes).
extern "C" __global__ void k_batch_ptrs(u64* out, int n, int p0, int inner,
                                        u64 baseA, long long outerA, long long stepA,
                                        u64 baseB, long long outerB, long long stepB,
                                        u64 baseC, long long outerC, long long stepC) {
  GRID_STRIDE(i, (long long)n) {
    const long long p = p0 + i, o = p / inner, s = p - o * inner;
    out[i] = baseA + o * outerA + s * stepA;
    out[n + i] = baseB + o * outerB + s * stepB;
    out[2 * n + i] = baseC + o * outerC + s * stepC;
  }
}

// k_sumsq_part: block b of a fixed grid sums the squares of its
// grid-stride share in float64, then the block's threads in a fixed tree.
extern "C" __global__ void k_sumsq_part(double* part, const float* x, long long n) {
  __shared__ double sh[256];
  double s = 0;
  GRID_STRIDE(i, n) { const double v = x[i]; s += v * v; }
  sh[threadIdx.x] = s;
  __syncthreads();
  for (int o = blockDim.x >> 1; o > 0; o >>= 1) {
    if ((int)threadIdx.x < o) sh[threadIdx.x] += sh[threadIdx.x + o];
    __syncthreads();
  }
  if (threadIdx.x == 0) part[blockIdx.x] = sh[0];
}

// k_sum_final adds the n partial sums in index order (one thread: n is the
// first stage's grid, at most 1024).
extern "C" __global__ void k_sum_final(double* out, const double* part, int n) {
  if (threadIdx.x == 0 && blockIdx.x == 0) {
    double s = 0;
    for (int i = 0; i < n; i++) s += part[i];
    out[0] = s;
  }
}

// k_scale_rows: C = beta*C over a [m, n] matrix of row stride ld; beta 0
// writes zeros whatever C held (NaNs included), as a product with beta 0
// must.
extern "C" __global__ void k_scale_rows(float* c, int m, int n, long long ld, float beta) {
  GRID_STRIDE(i, (long long)m * n) {
    const long long r = i / n, j = i - r * n;
    float* p = c + r * ld + j;
    *p = beta == 0.0f ? 0.0f : *p * beta;
  }
}
